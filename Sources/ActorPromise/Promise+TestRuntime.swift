import ActorPromiseExecutors

/// `Promise { resolver in … }` while a test runtime drives the caller (`PromiseTestRuntime`):
/// the body gets the resolver of an inner promise, and the promise returned takes the inner
/// one's outcome inside the runtime — at once when it settles there, as one of the runtime's
/// jobs when it settles on another thread (an SDK's queue), so that what follows runs in the
/// runtime's order. The runtime decides, by what the body started (`bodyEnded`), whether a body
/// that leaves the inner promise pending handed its resolver to work outside, for which its clock
/// then waits as for a completion handler. Cancelling the promise cancels the inner one,
/// whose `onCancel` (the body's) runs. Outside tests, one relaxed load decides that nothing of
/// this happens.
///
/// `Promise { resolver in … }` while somebody watches promises being made (see
/// ``creationWatchers``): a test runtime driving the caller (see
/// ``promiseMadeUnderTestRuntime(tracksInterest:fileID:line:_:)``), or, in a release build with
/// failure traces on, the trace switch, for which the promise keeps its site (R16).
///
/// Returns `nil`, having run nothing, when neither applies: the caller makes the promise itself.
@usableFromInline @inline(never)
func promiseMadeWhileWatched<Value: Sendable>(
    tracksInterest: Bool, fileID: StaticString, line: UInt, _ body: (Resolver<Value>) throws -> Void
) -> Promise<Value>? {
    if let made = promiseMadeUnderTestRuntime(tracksInterest: tracksInterest, fileID: fileID, line: line, body) {
        return made
    }
    #if DEBUG
    return nil
    #else
    guard tracesAreOn else { return nil }
    let site = PromiseSite(fileID: fileID, line: line, operation: .promise)
    let core = PromiseCore<Value>(PromiseStateMachine(), tracksInterest: tracksInterest, site: site, rare: .keeping(site))
    let resolver = Resolver(core: core)
    do {
        try body(resolver)
    } catch {
        resolver.reject(error, cause: .bodyThrew)
    }
    return Promise(core: core)
    #endif
}

/// Returns `nil`, having run nothing, when no test runtime drives the caller.
func promiseMadeUnderTestRuntime<Value: Sendable>(
    tracksInterest: Bool, fileID: StaticString, line: UInt, _ body: (Resolver<Value>) throws -> Void
) -> Promise<Value>? {
    guard let tracker = currentOutsideWorkTracker() else { return nil }
    let (promise, resolver) = Promise<Value>.pending(tracksInterest: tracksInterest, fileID: fileID, line: line)
    let (inner, innerResolver) = Promise<Value>.pending(tracksInterest: false, fileID: fileID, line: line)
    promise.core.notePending(.handOver(ObjectIdentifier(inner.core)))
    let handoff = OutsideHandoff()
    inner.observe { outcome in handoff.deliver { resolver.resolve(outcome) } }
    resolver.onCancel { inner.cancel() }
    let mark = tracker.bodyBegan()
    do {
        try body(innerResolver)
    } catch {
        innerResolver.reject(error, cause: .bodyThrew)
    }
    if tracker.bodyEnded(mark), inner.isPending {
        let site = promise.core.siteText ?? "an unrecorded site"
        handoff.track(OutsideCallback.started(
            "the promise made at \(site), whose body handed its resolver to work outside the runtime,"))
    }
    return promise
}

/// Where the outcome of a body's inner promise goes (see `promiseMadeUnderTestRuntime`): through
/// the outside callback the runtime waits for, once one is tracked, or straight to the promise.
final class OutsideHandoff: Sendable {
    private let state = LockedState<(delivered: Bool, callback: OutsideCallback?)>((false, nil))

    /// Waits for the outcome through `callback`: the runtime holds its clock until it comes.
    func track(_ callback: OutsideCallback?) {
        guard let callback else { return }
        let alreadyDelivered = state.withLock { state -> Bool in
            if state.delivered { return true }
            state.callback = callback
            return false
        }
        // The outcome came meanwhile: nothing is left to wait for.
        if alreadyDelivered { callback.deliver {} }
    }

    /// Settles the promise with the inner one's outcome: through the tracked callback, if any.
    func deliver(_ settle: @escaping @Sendable () -> Void) {
        let callback = state.withLock { state -> OutsideCallback? in
            state.delivered = true
            defer { state.callback = nil }
            return state.callback
        }
        if let callback { callback.deliver(settle) } else { settle() }
    }
}
