/// Wraps a Swift concurrency job so that a context can queue it like any other work item.
package final class JobItem: WorkItem, @unchecked Sendable {
    // Safety: immutable after init.
    private let job: UnownedJob
    private let serial: UnownedSerialExecutor?
    private let task: UnownedTaskExecutor?

    package init(_ job: UnownedJob, serial: UnownedSerialExecutor?, task: UnownedTaskExecutor?) {
        self.job = job
        self.serial = serial
        self.task = task
        super.init()
    }

    package override func run() {
        switch (serial, task) {
        case let (serial?, task?): job.runSynchronously(isolatedTo: serial, taskExecutor: task)
        case let (serial?, nil): job.runSynchronously(on: serial)
        case let (nil, task?): job.runSynchronously(on: task)
        case (nil, nil): fatalError("a job item needs an executor")
        }
    }

    /// A job must run: dropping it would leave its task suspended forever. A context that stops
    /// with jobs still queued runs them before it stops (handlers, by contrast, are discarded).
    package override func discard() { run() }
}
extension ThreadState {
    /// Runs `body` with `executor` recorded as the serial context running on this thread.
    @inline(__always)
    ///
    /// The identity is recorded unretained, as a raw pointer: `executor` is an argument of this
    /// call and so alive until `body` returns, and the record is removed before that. A reader
    /// on this thread (``describeRunningContext(_:)``, from inside `body`) may therefore turn it
    /// back into the object.
    package func running<R>(_ executor: AnyObject, _ body: () -> R) -> R {
        let outer = runningExecutor
        runningExecutor = UnsafeRawPointer(Unmanaged.passUnretained(executor).toOpaque())
        defer { runningExecutor = outer }
        return body()
    }

    /// Whether `executor` is the serial context running a job on this thread.
    @inline(__always)
    package func isRunning(_ executor: AnyObject) -> Bool {
        runningExecutor == UnsafeRawPointer(Unmanaged.passUnretained(executor).toOpaque())
    }
}
