/// The values of the registered task-local keys at one registration, to bind around the run of
/// what was registered there (R15).
///
/// An object, so that the `CapturedTaskLocals?` every handler registration passes along is one
/// pointer (`nil` with no key registered), and so that registrations that capture the same values
/// share one: a thread remembers the last one it made (weakly, so the values live no longer than
/// the handlers that carry them) and hands it out again while each key still holds the same value.
@usableFromInline
final class CapturedTaskLocals: Sendable {
    /// The list of keys the values were captured for.
    let keys: ObjectIdentifier
    let values: [any CapturedTaskLocal]
    /// The side object the promise made with this capture starts with, keeping its site for
    /// failure traces: release builds with traces on (R16), where every registration makes a
    /// capture of its own; `nil` otherwise.
    @usableFromInline let rareForTraces: RareTreeState?

    init(keys: ObjectIdentifier, values: [any CapturedTaskLocal], keepingForTraces site: PromiseSite? = nil) {
        self.keys = keys
        self.values = values
        rareForTraces = site.map { RareTreeState.keeping(site: $0) }
    }

    /// Whether every key still holds the value captured here, on this thread.
    func isCurrent(for keys: ObjectIdentifier) -> Bool {
        guard keys == self.keys else { return false }
        // By index: each element is used in place, not copied out of the array first.
        for index in values.indices where !values[index].isCurrent() { return false }
        return true
    }

    /// Runs `body` with the captured values bound; they end with it.
    @usableFromInline
    func bind<R>(_ body: () throws -> R) rethrows -> R {
        // One key is the common case (a trace or request identifier): bound without the recursion.
        if values.count == 1 { return try values[0].bind(body) }
        return try bind(from: values.startIndex, body)
    }

    private func bind<R>(from index: Int, _ body: () throws -> R) rethrows -> R {
        guard index < values.endIndex else { return try body() }
        return try values[index].bind { try bind(from: index + 1, body) }
    }
}

/// One key's captured value. An object, so that reaching it through the array costs a retain, not
/// a copy of the value through its type's witnesses.
protocol CapturedTaskLocal: AnyObject, Sendable {
    func bind<R>(_ body: () throws -> R) rethrows -> R
    /// Whether the key's value here is this one: the same bits, which for any type means the same
    /// value (a reference in it is kept alive by this capture, so its address cannot be reused).
    /// Equal values with different bits only miss the sharing.
    func isCurrent() -> Bool
}

final class CapturedValue<Value: Sendable>: CapturedTaskLocal {
    let key: TaskLocal<Value>
    let value: Value

    init(key: TaskLocal<Value>, value: Value) {
        self.key = key
        self.value = value
    }

    func bind<R>(_ body: () throws -> R) rethrows -> R {
        try key.withValue(value, operation: body)
    }

    func isCurrent() -> Bool {
        // Local copies, and closures that capture pointers only: this runs unspecialized (through
        // the protocol), where a closure capturing `self` would look up this type's metadata.
        var now = key.get()
        var captured = value
        return haveSameBits(&now, &captured)
    }
}

