import Synchronization

/// Takes over the jobs one thread submits to execution contexts (and, as a
/// ``TimerInterceptor``, the timers it schedules on the system clock): the test runtime of
/// `ActorPromiseTesting` while it drives a test on that thread (``ThreadState/interceptor``).
/// Other threads are untouched: there is no process-wide switch.
package protocol JobInterceptor: AnyObject, Sendable {
    /// Queues `item`, submitted to `context`, to run when the interceptor chooses: in submission
    /// order among the context's items if `ordered` (a serial context), else in any order (a
    /// pool, whose jobs are independent).
    func enqueue(_ item: any Runnable, on context: any ExecutionContext, ordered: Bool)

    /// Runs queued jobs and due timers until `isDone` says so or nothing more can run.
    func drive(until isDone: () -> Bool)

    /// A number no other interceptor of the process has had, which the promises made under this
    /// one are recorded with: an object's address is reused once the object is freed.
    var serialNumber: UInt64 { get }
}

/// Hands `item` to the calling thread's interceptor, if it has one; returns whether it did.
@inline(__always)
package func intercepted(_ item: @autoclosure () -> any Runnable, on context: any ExecutionContext, ordered: Bool) -> Bool {
    guard let interceptor = ThreadState.withCurrent({ $0.activeInterceptor }) else { return false }
    interceptor.enqueue(item(), on: context, ordered: ordered)
    return true
}

/// An item a test runtime runs as `context`'s (for `isCurrent` and the deadlock checks of
/// `wait()`), or as nobody's.
package final class RunningItem: Runnable {
    package let item: any Runnable
    let context: (any ExecutionContext)?

    package init(_ item: any Runnable, in context: (any ExecutionContext)?) {
        self.item = item
        self.context = context
    }

    package func run() {
        guard let context else { return item.run() }
        ThreadState.current.running(context) { item.run() }
    }

    package func discard() { item.discard() }
}

/// A job that can say what it is, for a test runtime's record of the order it ran jobs in: "the
/// handler of the promise made at Loader.swift:12".
package protocol DescribedJob {
    /// What the job is.
    var jobDescription: String { get }
}

extension JobItem: DescribedJob {
    package var jobDescription: String { "a task's job" }
}

/// A test runtime that drives a task rather than a thread: the main-actor form of its
/// asynchronous `run`, whose body's main-actor code runs on the main actor between the runtime's
/// own turns. Code running in that task (and its child tasks) hands its jobs and timers to the
/// runtime as a driven thread does; other tasks and threads — another test's main-actor code
/// among them — are untouched.
package enum TaskInterception {
    /// The runtime driving the current task.
    @TaskLocal package static var interceptor: (any JobInterceptor)?
    /// How many runtimes drive a task now: the task-local is read only while one does, so code
    /// outside tests pays one relaxed load.
    package static let drivers = Atomic<Int>(0)

    /// The runtime driving the current task, if any.
    @inline(__always)
    package static var current: (any JobInterceptor)? {
        guard drivers.load(ordering: .relaxed) > 0 else { return nil }
        return interceptor
    }
}

extension ThreadState {
    /// The test runtime that takes this code's jobs: the one driving this thread, or else the one
    /// driving the current task.
    @inline(__always)
    package var activeInterceptor: (any JobInterceptor)? { interceptor ?? TaskInterception.current }
}
