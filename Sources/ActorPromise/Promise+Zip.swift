/// Combines promises of different types into one promise of a tuple, for any number of inputs.
///
/// Fulfilled with all values once every input is fulfilled; the first rejection rejects it and
/// cancels the inputs still pending; cancelling it cancels every input (as ``Promise/all(_:fileID:line:)``).
///
/// ```swift
/// let (user, settings) = try await zip(loadUser(), loadSettings()).value
/// ```
public func zip<each V: Sendable>(_ promises: repeat Promise<each V>) -> Promise<(repeat each V)> {
    var erased: [Promise<any Sendable>] = []
    for promise in repeat each promises {
        erased.append(promise.map(on: .inline) { $0 as any Sendable })
    }
    let originals: [AnyPromise] = {
        var handles: [AnyPromise] = []
        for promise in repeat each promises { handles.append(AnyPromise(promise)) }
        return handles
    }()
    let combined = Promise<any Sendable>.all(erased)
    // A rejection of one input cancels the other inputs themselves, not just their wrappers.
    combined.tap(on: .inline) { outcome in
        if case .failure = outcome { for input in originals where input.isPending { input.cancel() } }
    }
    return combined.map(on: .inline) { values in
        var iterator = values.makeIterator()
        return (repeat iterator.next()! as! each V)
    }
}
