/// A ``JobInterceptor`` that also takes over the timers its thread schedules on the system clock
/// (``TimerThread/system``): they go to its manual clock, which it advances itself. The test runtime
/// of `ActorPromiseTesting` is one.
package protocol TimerInterceptor: JobInterceptor {
    /// The clock that replaces the system clock on the thread.
    var clock: ManualScheduler { get }
}
