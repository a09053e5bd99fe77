import ActorPromiseExecutors

extension Promise where Value == Void {
    /// A promise fulfilled with `()` after `delay` — PromiseKit's `after(seconds:)`.
    ///
    /// - Parameters:
    ///   - delay: How long to wait.
    ///   - scheduler: The source of time. Defaults to the real clock; tests pass a
    ///     `ManualScheduler`.
    /// - Returns: The promise. Cancelling it cancels the timer, which frees its memory at once.
    public static func after(_ delay: Duration, scheduler: any PromiseScheduler = .system) -> Promise<Void> {
        Promise(value: ()).delay(delay, scheduler: scheduler)
    }
}
