import Dispatch
import Foundation

/// Runs handlers on the main thread, through the main dispatch queue (E4).
///
/// That queue is what `MainActor` runs on: each handler is posted to it as one block, so
/// `then(on: .main)` handlers interleave with main-actor code in submission order. Something must
/// service the main queue: in an app or an `async` `main` it already is; a command-line program
/// that blocks its main thread instead calls ``run(until:timeout:)`` to drive it, or waits for a
/// promise with `wait()`, which serves the main queue — this context's handlers and main-actor
/// jobs — while it waits (E5).
public final class MainContext: ExecutionContext, Sendable {
    /// The main context.
    public static let shared = MainContext()

    /// Handlers in submission order. Each also posts one block to the main queue, which runs the
    /// first one still here; a main thread blocked in `wait()` may run them first instead.
    private let queue = LockedState(WorkQueue())

    /// Marks the main queue, so that code can tell it runs there (see ``isMainThread``).
    private static let mainQueueKey: DispatchSpecificKey<Bool> = {
        let key = DispatchSpecificKey<Bool>()
        DispatchQueue.main.setSpecific(key: key, value: true)
        return key
    }()

    private init() {}

    /// Queues `item` on the main thread.
    public func submit(_ item: any Runnable) {
        // A test runtime runs main-context jobs only when it drives the main thread, where they
        // are main-actor code.
        if let runtime = ThreadState.withCurrent({ $0.activeInterceptor }), Self.isMainThread {
            return runtime.enqueue(item, on: self, ordered: true)
        }
        queue.withLockWakingWaiters { $0.append(item) }
        DispatchQueue.main.async { self.runNext() }
    }

    /// Whether the calling code runs a handler of this context right now.
    public var isCurrent: Bool { ThreadState.current.isRunning(self) }

    /// Whether the calling code runs on the main thread or in a block of the main queue — where
    /// `MainActor` code and `then(on: .main)` handlers run. (On Linux a program's main queue may
    /// be served by a thread other than the process's first one; both count.)
    public static var isMainThread: Bool {
        Thread.isMainThread || DispatchQueue.getSpecific(key: mainQueueKey) == true
    }

    private func takeNext() -> (any Runnable)? {
        queue.withLock { $0.popFirst() }
    }

    private func runNext() {
        guard let item = takeNext() else { return }
        ThreadState.current.running(self) { item.run() }
    }

    /// Wakes a main thread blocked in ``runHandlers(until:deadline:)``, so it checks its condition.
    package func wake() {
        queue.withLockWakingWaiters { _ in }
    }

    /// Runs this context's handlers on the calling (main) thread until `isDone` returns `true`
    /// or `deadline` (monotonic seconds) passes; sleeps while there is nothing to run. Whoever
    /// makes `isDone` true must call ``wake()`` afterwards. Returns whether `isDone` became true.
    package func runHandlers(until isDone: () -> Bool, deadline: Double) -> Bool {
        while true {
            while let item = takeNext() {
                ThreadState.current.running(self) { item.run() }
            }
            // `true`: done; `false`: out of time; `nil`: handlers to run.
            let outcome: Bool? = queue.withLock(waiting: { queue in
                if !queue.isEmpty { return .done(nil) }
                if isDone() { return .done(true) }
                let remaining = deadline - monotonicSeconds()
                return remaining <= 0 ? .done(false) : .wait(seconds: min(remaining, 1e9))
            })
            if let outcome { return outcome }
        }
    }

    /// Serves the main thread until `isDone` returns `true` or `deadline` (monotonic seconds)
    /// passes: this context's handlers, and the main queue — main-actor jobs — through the main
    /// run loop. Where the main queue cannot be served (the caller is itself a main-queue block)
    /// the run loop returns at once and only this context's handlers run. Whoever makes `isDone`
    /// true must call ``wakeMainThread()`` afterwards.
    package func serveMainQueue(until isDone: () -> Bool, deadline: Double) {
        while !isDone() {
            let now = monotonicSeconds()
            if now >= deadline { return }
            // Handlers queued here first (without blocking), then one turn of the run loop, which
            // sleeps until a main-queue block arrives — a main-actor job, a handler's own block, or
            // the wake-up — for at most 50 ms, so a caller inside a main-queue block still polls.
            if runHandlers(until: isDone, deadline: now) { return }
            let turn = min(deadline - now, 0.05)
            if Thread.isMainThread {
                _ = RunLoop.main.run(mode: .default, before: Date(timeIntervalSinceNow: turn))
            } else {
                // A thread serving the main queue that is not the process's first one (Linux): the
                // main run loop is not this thread's to drive; this context's handlers still run.
                _ = runHandlers(until: isDone, deadline: now + turn)
            }
        }
    }

    /// Wakes a main thread blocked in ``serveMainQueue(until:deadline:)`` or
    /// ``runHandlers(until:deadline:)``.
    package func wakeMainThread() {
        wake()
        DispatchQueue.main.async {}
    }

    /// Drives the main queue from the main thread until `condition` returns `true`.
    ///
    /// - Parameters:
    ///   - condition: Checked after each turn of the loop.
    ///   - timeout: Gives up after this much time (returns `false`).
    /// - Returns: Whether `condition` became true.
    /// - Precondition: called on the main thread.
    @discardableResult
    public func run(until condition: () -> Bool, timeout: Duration = .seconds(1_000_000_000)) -> Bool {
        let deadline = Date(timeIntervalSinceNow: min(seconds(timeout), 1e9))
        while !condition() {
            if Date() >= deadline { return false }
            _ = RunLoop.main.run(mode: .default, before: min(deadline, Date(timeIntervalSinceNow: 0.05)))
        }
        return true
    }
}

extension ExecutionContext where Self == MainContext {
    /// The main thread, through the main dispatch queue. See ``MainContext``.
    public static var main: MainContext { MainContext.shared }
}
