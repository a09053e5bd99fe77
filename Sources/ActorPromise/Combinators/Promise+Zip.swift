/// Combines promises of different types into one promise of a tuple, for any number of inputs.
///
/// Fulfilled with all values once every input is fulfilled; the first rejection rejects it.
/// Once it is rejected or cancelled it stops waiting for the inputs still pending, which cancels
/// each one that nobody else waits for (as ``Promise/all(_:progress:fileID:line:)``).
///
/// ```swift
/// let (user, settings) = try await zip(loadUser(), loadSettings()).value
/// ```
///
/// - Parameters:
///   - promises: The inputs.
///   - fileID: Where the returned promise is made, for diagnostics (filled in for you).
///   - line: The line of that site (filled in for you).
/// - Returns: The values as a tuple, or the first rejection.
public func zip<each V: Sendable>(
    _ promises: repeat Promise<each V>, fileID: StaticString = #fileID, line: UInt = #line
) -> Promise<(repeat each V)> {
    var erased: [Promise<any Sendable>] = []
    for promise in repeat each promises {
        erased.append(promise.branch().map(on: .inline) { $0 as any Sendable })
    }
    // The wrappers derive from branches, which follow the inputs (a late cancel of a settled input
    // does not reach them): when `all` stops waiting for a wrapper, the wrapper cancels itself,
    // its branch loses that interest, and the input in turn.
    // The library's own promises (the branches, the wrappers, the tuple's) are left out of
    // failure traces, which name an input's rejection `zip input 2 of 3` (R16); the tuple's
    // promise is made at the caller's site, which it names in `debugDescription`.
    let values = Promise<any Sendable>.all(erased, progress: nil, operation: .zipInput, fileID: fileID, line: line)
    let tuple: Promise<(repeat each V)> = values.derive(
        site: PromiseSite(fileID: fileID, line: line, operation: .library),
        link: .then(context: InlineContext.shared, taskLocals: PromiseTaskLocals.capture()) { (values: [any Sendable]) -> (repeat each V) in
            var iterator = values.makeIterator()
            return (repeat iterator.next()! as! each V)
        })
    // A pending snapshot names the result by the tuple's type (release builds register it here).
    tuple.core.registerInReleaseIfTracking(site: PromiseSite(fileID: fileID, line: line, operation: .library))
    return tuple
}
