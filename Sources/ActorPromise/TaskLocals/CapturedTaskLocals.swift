/// The values of the registered task-local keys at one registration, to bind around the run of
/// what was registered there (R15).
///
/// One array: the `CapturedTaskLocals?` that every handler registration passes along is then one
/// pointer, `nil` with no key registered. (Holding the first value apart, in an existential, made
/// it 48 bytes, and copying and destroying the `nil` through outlined value witnesses cost W1 280
/// instructions a link.)
@usableFromInline
struct CapturedTaskLocals: Sendable {
    let values: [any CapturedTaskLocal]

    /// Runs `body` with the captured values bound; they end with it.
    @usableFromInline
    func bind<R>(_ body: () throws -> R) rethrows -> R {
        try bind(from: values.startIndex, body)
    }

    private func bind<R>(from index: Int, _ body: () throws -> R) rethrows -> R {
        guard index < values.endIndex else { return try body() }
        return try values[index].bind { try bind(from: index + 1, body) }
    }
}

/// One key's captured value.
protocol CapturedTaskLocal: Sendable {
    func bind<R>(_ body: () throws -> R) rethrows -> R
}

struct CapturedValue<Value: Sendable>: CapturedTaskLocal {
    let key: TaskLocal<Value>
    let value: Value

    func bind<R>(_ body: () throws -> R) rethrows -> R {
        try key.withValue(value, operation: body)
    }
}

extension PromiseTaskLocals {
    /// `body`, made to run with the task-local values bound here; `body` itself when no key is
    /// registered.
    static func carrying<each Argument, Result>(
        _ body: @escaping @Sendable (repeat each Argument) throws -> Result
    ) -> @Sendable (repeat each Argument) throws -> Result {
        guard let captured = capture() else { return body }
        return { (argument: repeat each Argument) in try captured.bind { try body(repeat each argument) } }
    }

    /// The non-throwing form of ``carrying(_:)-(_)``.
    static func carrying<each Argument, Result>(
        _ body: @escaping @Sendable (repeat each Argument) -> Result
    ) -> @Sendable (repeat each Argument) -> Result {
        guard let captured = capture() else { return body }
        return { (argument: repeat each Argument) in captured.bind { body(repeat each argument) } }
    }
}
