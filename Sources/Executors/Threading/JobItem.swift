/// Wraps a Swift concurrency job so that a context can queue it like any other work item.
package final class JobItem: Runnable {
    private let job: UnownedJob
    private let serial: UnownedSerialExecutor?
    private let task: UnownedTaskExecutor?

    package init(_ job: UnownedJob, serial: UnownedSerialExecutor?, task: UnownedTaskExecutor?) {
        self.job = job
        self.serial = serial
        self.task = task
    }

    package func run() {
        switch (serial, task) {
        case let (serial?, task?): job.runSynchronously(isolatedTo: serial, taskExecutor: task)
        case let (serial?, nil): job.runSynchronously(on: serial)
        case let (nil, task?): job.runSynchronously(on: task)
        case (nil, nil): fatalError("a job item needs an executor")
        }
    }

    /// A job must run: dropping it would leave its task suspended forever. A context that stops
    /// with jobs still queued runs them before it stops (handlers, by contrast, are discarded).
    package func discard() { run() }
}
