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

/// An observer that calls a closure directly with the outcome, on the settling thread. For
/// library-internal observers whose closure neither blocks nor settles promises synchronously
/// (resuming a continuation, counting), so no context hop is needed.
final class CallbackObserver<Value: Sendable>: Observer<Value>, @unchecked Sendable {
    // Safety: immutable after init.
    private let body: @Sendable (Outcome<Value>) -> Void

    init(_ body: @escaping @Sendable (Outcome<Value>) -> Void) { self.body = body }

    override func receive(_ outcome: Outcome<Value>) { body(outcome) }
}

extension Promise {
    /// Calls `body` with the outcome on the settling thread, without deriving a promise. `body`
    /// must be quick and must not block. For the bridge module.
    package func observe(_ body: @escaping @Sendable (Outcome<Value>) -> Void) {
        core.send(.register(observer: CallbackObserver(body), child: nil, dependent: false))
    }

    /// A child that settles exactly as this promise does, so that cancelling it cancels only
    /// that branch.
    package func branch() -> Promise<Value> {
        derive(on: .inline) { .settle($0) }
    }
}

extension Promise {
    /// The outcome if settled, read without the gate. For the bridge module.
    package var settledOutcome: Outcome<Value>? { core.settledOutcome }
}
