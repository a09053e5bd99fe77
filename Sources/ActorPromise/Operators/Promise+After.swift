import ActorPromiseExecutors

extension Promise where Value == Void {
    /// A promise fulfilled with `()` after `delay` — PromiseKit's `after(seconds:)`.
    ///
    /// - Parameters:
    ///   - delay: How long to wait.
    ///   - scheduler: The source of time. Defaults to the real clock; tests pass a
    ///     `ManualScheduler`.
    ///   - fileID: Where the promise is created, for diagnostics in debug builds (filled in for you).
    ///   - line: The line of that site (filled in for you).
    /// - Returns: The promise. Cancelling it cancels the timer, which frees its memory at once.
    public static func after(
        _ delay: Duration, scheduler: any PromiseScheduler = .system, fileID: StaticString = #fileID, line: UInt = #line
    ) -> Promise<Void> {
        Promise(value: (), fileID: fileID, line: line).delay(delay, scheduler: scheduler, fileID: fileID, line: line)
    }
}
