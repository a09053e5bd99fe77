/// The values of the registered task-local keys at one registration, to bind around the run of
/// what was registered there (R15).
///
/// One array: the `CapturedTaskLocals?` that every handler registration passes along is then one
/// pointer, `nil` with no key registered. (Holding the first value apart, in an existential, would
/// make it six words, copied and destroyed through outlined value witnesses on every link.)
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
    // Inlinable and not variadic, so that they are specialized where they are called: with no key
    // registered, `body` comes back as it went in. (A variadic-generic version would wrap every
    // lazy body in two reabstraction thunks, each an allocation. The generic forms below still wrap closures whose types differ from their
    // maximally abstract shape; hot paths get an overload of their own.)

    /// `body`, made to run with the task-local values bound here; `body` itself when no key is
    /// registered.
    @inlinable
    static func carrying<Argument, Result>(
        _ body: @escaping @Sendable (Argument) throws -> Result
    ) -> @Sendable (Argument) throws -> Result {
        guard let captured = capture() else { return body }
        return { argument in try captured.bind { try body(argument) } }
    }

    /// The non-throwing form of ``carrying(_:)-(_)``.
    @inlinable
    static func carrying<Argument, Result>(
        _ body: @escaping @Sendable (Argument) -> Result
    ) -> @Sendable (Argument) -> Result {
        guard let captured = capture() else { return body }
        return { argument in captured.bind { body(argument) } }
    }

    /// The form for a lazy body. Its own overload, not the generic one: passing a closure as
    /// `(Argument) throws -> Result` wraps it in a reabstraction thunk and the result in another
    /// (an allocation each) even where the call is specialized; `Resolver<Value>` is a class, so
    /// this signature needs none.
    @inlinable
    static func carrying<Value>(
        _ body: @escaping @Sendable (Resolver<Value>) throws -> Void
    ) -> @Sendable (Resolver<Value>) throws -> Void {
        guard let captured = capture() else { return body }
        return { resolver in try captured.bind { try body(resolver) } }
    }

    /// The form for a closure without arguments (`onCancel`).
    @inlinable
    static func carrying(_ body: @escaping @Sendable () -> Void) -> @Sendable () -> Void {
        guard let captured = capture() else { return body }
        return { captured.bind { body() } }
    }
}
