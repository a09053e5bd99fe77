/// Something waiting for a promise's outcome: a handler link, an adopting promise, an awaiter.
///
/// `receive` is called once, after the state actor's gate is released, from a drain loop that
/// keeps the stack flat. Observers hand themselves to a context there; they must not settle other
/// promises directly inside `receive` (that would nest).
class Observer<Value: Sendable>: WorkItem, @unchecked Sendable {
    // Safety: see `WorkItem`; subclasses write their input in `receive` before submitting
    // themselves and read it in `run`.
    func receive(_ outcome: Outcome<Value>) {}
}

/// The observers of one promise, in registration order. The first is stored inline, so a promise
/// with one handler allocates no array.
struct ObserverList<Value: Sendable> {
    private var first: Observer<Value>?
    private var rest: [Observer<Value>] = []

    var isEmpty: Bool { first == nil }

    mutating func append(_ observer: Observer<Value>) {
        if first == nil { first = observer } else { rest.append(observer) }
    }

    /// Hands every observer the outcome, in registration order.
    func notify(_ outcome: Outcome<Value>) {
        guard let first else { return }
        first.receive(outcome)
        for observer in rest { observer.receive(outcome) }
    }

    /// Removes `observer` if present; returns whether it was.
    mutating func remove(_ observer: Observer<Value>) -> Bool {
        if first === observer {
            first = rest.isEmpty ? nil : rest.removeFirst()
            return true
        }
        if let index = rest.firstIndex(where: { $0 === observer }) {
            rest.remove(at: index)
            return true
        }
        return false
    }
}
