import ActorPromiseExecutors

extension Promise {
    /// A promise that settles like this promise, or is rejected with
    /// ``PromiseError/Code/timedOut`` if this promise has not settled after `delay`.
    ///
    /// On timeout the branch counts as cancelled for this promise: if the branch was the last
    /// dependent that waited for it, it cancels itself (and its work, B7). Cancelling the
    /// returned promise cancels the timer and the branch; cancelling this promise cancels the
    /// returned one.
    ///
    /// - Parameters:
    ///   - fileID: Where the returned promise is made, for diagnostics (filled in for you).
    ///   - line: The line of that site (filled in for you).
    ///   - delay: How long to wait.
    ///   - scheduler: The source of time. Defaults to the real clock; tests pass a
    ///     `ManualScheduler`.
    public func timeout(
        after delay: Duration, scheduler: any PromiseScheduler = .system, fileID: StaticString = #fileID, line: UInt = #line
    ) -> Promise<Value> {
        let branch = self.branch()
        let site = PromiseSite(fileID: fileID, line: line, operation: .timeout)
        let core = PromiseCore<Value>(PromiseStateMachine(), site: site, rare: .keeping(site))
        let (result, resolver) = (Promise(core: core), Resolver(core: core))
        core.notePending(.timeout(source: ObjectIdentifier(self.core), delay: delay, due: scheduler is TimerThread ? .now + delay : nil))
        let timer = scheduler.schedule(after: delay) {
            guard branch.isPending else { return }
            resolver.reject(PromiseError(.timedOut), cause: .timedOut)
            branch.cancel(reason: PromiseError(.timedOut))
        }
        branch.observe { outcome in
            timer.cancel()
            if tracesAreOn {
                resolver.resolve(outcome, carryingOn: branch.core.traceNode, as: site)
            } else {
                resolver.resolve(outcome)
            }
        }
        resolver.onCancel {
            timer.cancel()
            branch.cancel()
        }
        return result
    }

    /// A promise that settles like this one, `delay` later.
    ///
    /// Cancelling the returned promise during the delay rejects it at once and cancels the timer.
    ///
    /// - Parameters:
    ///   - fileID: Where the returned promise is made, for diagnostics (filled in for you).
    ///   - line: The line of that site (filled in for you).
    ///   - delay: How long to hold the outcome.
    ///   - scheduler: The source of time. Defaults to the real clock.
    public func delay(
        _ delay: Duration, scheduler: any PromiseScheduler = .system, fileID: StaticString = #fileID, line: UInt = #line
    ) -> Promise<Value> {
        then(on: .inline, fileID: fileID, line: line) { value -> Promise<Value> in
            // Cancelling the returned promise (which follows this one) cancels it: interest.
            let (delayed, resolver) = Promise<Value>.pending(fileID: fileID, line: line)
            delayed.core.notePending(.timer(delay: delay, due: scheduler is TimerThread ? .now + delay : nil))
            let timer = scheduler.schedule(after: delay) { resolver.fulfill(value) }
            resolver.onCancel { timer.cancel() }
            return delayed
        }
    }
}
