import ActorPromise
import Foundation

/// W5x with its mode fixed: every await has fully suspended before another thread settles what it
/// waits for. The awaiting task runs on ``SuspendingExecutor``, which runs its jobs on a thread of
/// its own and, each time a job has returned (the task is suspended), hands the action that job
/// left to a second thread. Both threads block on condition variables, never spin, so the count
/// of instructions per await is one number from run to run — for the library's await and for the
/// bare continuation it is built on alike. Their difference is the library's own share.
enum SuspendedAwaitWorkloads {
    static func run(_ body: @escaping @Sendable (SuspendingExecutor) async -> Void) {
        let executor = SuspendingExecutor()
        let done = DispatchSemaphore(value: 0)
        Task(executorPreference: executor) {
            await body(executor)
            done.signal()
        }
        done.wait()
    }

    static func awaitPromise(iterations: Int, on executor: SuspendingExecutor) async {
        var sum = 0
        for _ in 0..<iterations {
            let (promise, resolver) = Promise<Int>.pending()
            executor.afterSuspension { resolver.fulfill(1) }
            sum &+= try! await promise.value
        }
        precondition(sum == iterations)
    }

    static func unsafeContinuation(iterations: Int, on executor: SuspendingExecutor) async {
        var sum = 0
        for _ in 0..<iterations {
            sum &+= await withUnsafeContinuation { continuation in
                executor.afterSuspension { continuation.resume(returning: 1) }
            }
        }
        precondition(sum == iterations)
    }

    /// The floor for an await that a task's cancellation can end (B2): the unsafe continuation
    /// inside `withTaskCancellationHandler`, as the library awaits.
    static func cancellableContinuation(iterations: Int, on executor: SuspendingExecutor) async {
        var sum = 0
        for _ in 0..<iterations {
            sum &+= await withTaskCancellationHandler {
                await withUnsafeContinuation { continuation in
                    executor.afterSuspension { continuation.resume(returning: 1) }
                }
            } onCancel: {}
        }
        precondition(sum == iterations)
    }

    static func checkedContinuation(iterations: Int, on executor: SuspendingExecutor) async {
        var sum = 0
        for _ in 0..<iterations {
            sum &+= await withCheckedContinuation { continuation in
                executor.afterSuspension { continuation.resume(returning: 1) }
            }
        }
        precondition(sum == iterations)
    }
}

/// A task executor with one thread, which runs an action another thread once the job that left it
/// has returned.
final class SuspendingExecutor: TaskExecutor, @unchecked Sendable {
    // Safety (`@unchecked Sendable`): `jobs` is guarded by `condition`. `pending` is written by a
    // job, on the executor's thread, and read by the same thread after that job has returned.
    private let condition = NSCondition()
    private var jobs: [UnownedJob] = []
    private var pending: (@Sendable () -> Void)?
    private let other = HandOffThread()

    init() {
        jobs.reserveCapacity(4)
        let thread = Thread { [unowned self] in self.loop() }
        thread.start()
    }

    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        condition.lock()
        jobs.append(job)
        condition.signal()
        condition.unlock()
    }

    /// Runs `action` on the other thread once the current job has returned. Call it from a job.
    func afterSuspension(_ action: @escaping @Sendable () -> Void) { pending = action }

    private func loop() {
        while true {
            condition.lock()
            while jobs.isEmpty { condition.wait() }
            let job = jobs.removeFirst()
            condition.unlock()
            job.runSynchronously(on: asUnownedTaskExecutor())
            if let action = pending {
                pending = nil
                other.run(action)
            }
        }
    }
}

/// A thread that runs one handed-over action at a time.
final class HandOffThread: @unchecked Sendable {
    // Safety (`@unchecked Sendable`): `action` is guarded by `condition`.
    private let condition = NSCondition()
    private var action: (@Sendable () -> Void)?

    init() {
        let thread = Thread { [unowned self] in self.loop() }
        thread.start()
    }

    func run(_ action: @escaping @Sendable () -> Void) {
        condition.lock()
        self.action = action
        condition.signal()
        condition.unlock()
    }

    private func loop() {
        while true {
            condition.lock()
            while action == nil { condition.wait() }
            let next = action.take()!
            condition.unlock()
            next()
        }
    }
}
