import Synchronization
import Dispatch
import Foundation

// Foundation's own queues as handler contexts (E6): `then(on: myDispatchQueue)`,
// `then(on: myOperationQueue)`, `then(on: RunLoopContext(runLoop))`. The library's own queues
// stay the fast path; these are for programs that already have theirs.

extension DispatchQueue: ExecutionContext {
    /// Runs `item` on this queue, as a barrier block.
    ///
    /// On a serial queue that is a plain block, in submission order. On a concurrent queue a
    /// barrier waits for earlier blocks and runs alone — the safe default for handlers that
    /// touch state the queue guards, as with ``ConcurrentQueue``. Use ``concurrentContext`` for
    /// handlers that may run side by side. (The global queues ignore barriers.)
    ///
    /// A blocking `wait()` inside such a handler waits on a global queue, whose blocks run side by
    /// side (as `DispatchQueue.sync` from a block there does); on any other queue it is refused with
    /// `PromiseError.wouldDeadlock`, since the handler holds the queue the settlement may need.
    public func submit(_ item: any Runnable) {
        // A test runtime driving this thread runs the block on its own thread, in this queue's
        // order (a global queue's blocks in any order).
        if intercepted(RunningItem(item, in: isGlobal ? nil : self), on: self, ordered: !isGlobal) { return }
        if isGlobal {
            async { item.run() }
        } else {
            async(flags: .barrier) { ThreadState.current.running(self) { item.run() } }
        }
    }

    /// Whether this is one of the global concurrent queues (`DispatchQueue.global(qos:)`), which
    /// Dispatch names `com.apple.root.…`.
    var isGlobal: Bool { label.hasPrefix("com.apple.root.") }

    /// A context that submits to this queue without barriers: on a concurrent queue, handlers run
    /// in parallel, and a blocking `wait()` inside one waits, as `DispatchQueue.sync` does.
    public var concurrentContext: some ExecutionContext { ConcurrentDispatchContext(queue: self) }
}

private final class ConcurrentDispatchContext: ExecutionContext {
    let queue: DispatchQueue
    init(queue: DispatchQueue) { self.queue = queue }
    func submit(_ item: any Runnable) {
        if intercepted(item, on: self, ordered: false) { return }
        // Not recorded as the running context: other blocks of the queue run beside this one, so
        // a blocking wait here holds nothing the settlement needs.
        queue.async { item.run() }
    }
}

extension OperationQueue: ExecutionContext {
    /// Adds `item` as an operation of this queue.
    ///
    /// With `maxConcurrentOperationCount == 1` handlers run in submission order, and a blocking
    /// `wait()` inside one is refused with `PromiseError.wouldDeadlock` (the queue is held); on a
    /// wider queue it waits. If the operation is cancelled before it starts
    /// (`cancelAllOperations()`), the item is cancelled instead of run: a handler's promise is
    /// rejected with `PromiseError.cancelled`.
    public func submit(_ item: any Runnable) {
        let run = ItemRun(item)
        let operation = BlockOperation()
        // A serial queue is held while the item runs: name it, so that a blocking wait inside
        // refuses. On a wider queue other operations run beside this one, and a wait may block.
        // (The queue is held strongly, as a pending `DispatchQueue` block keeps its queue: the
        // cycle queue → operation → queue ends when the operation leaves the queue. The
        // operation is held `unowned`: the block is stored in it, and Foundation runs the block
        // through it.)
        operation.addExecutionBlock { [unowned operation, self] in
            guard !operation.isCancelled else { return }
            run.started.store(true, ordering: .releasing)
            if maxConcurrentOperationCount == 1 {
                ThreadState.current.running(self) { run.item.run() }
            } else {
                run.item.run()
            }
        }
        // Foundation calls the completion block once the operation finished, whether it ran or was
        // cancelled first.
        operation.completionBlock = {
            if !run.started.load(ordering: .acquiring) { run.item.cancelWhileQueued() }
        }
        addOperation(operation)
    }
}

/// A work item on its way through an `OperationQueue`, and whether its operation started it (the
/// completion block, which runs either way, cancels an item that never started).
private final class ItemRun: Sendable {
    let item: any Runnable
    let started = Atomic<Bool>(false)

    init(_ item: any Runnable) { self.item = item }
}

/// A Foundation `RunLoop` as a handler context: handlers run on the loop's thread, in submission
/// order, while that thread runs the loop.
///
/// Hold it while handlers may still be submitted; the run loop itself belongs to its thread.
///
/// Each submission wakes the loop with a `Timer` due at once. On Linux, Foundation keeps such a
/// timer after it fired (about 300 bytes per submission, reported by the address sanitizer's leak
/// checker); a program that submits to a loop without end there should use a ``RunLoopThread``,
/// which needs no timer.
public final class RunLoopContext: ExecutionContext, @unchecked Sendable {
    // Safety (`@unchecked Sendable`): `RunLoop` is not `Sendable`; from other threads this type
    // only calls `perform(inModes:block:)` and adds a timer, which Core Foundation allows from any
    // thread (they are how work is handed to a run loop).
    private let runLoop: RunLoop
    private let modes: [RunLoop.Mode]

    /// Creates a context for `runLoop`.
    ///
    /// - Parameters:
    ///   - runLoop: The loop whose thread runs the handlers (for example `RunLoop.main`, or
    ///     `RunLoop.current` of a thread you run).
    ///   - modes: The modes in which handlers may run. Defaults to the common modes.
    public init(_ runLoop: RunLoop, modes: [RunLoop.Mode] = [.common]) {
        self.runLoop = runLoop
        self.modes = modes
    }

    /// Queues `item` on the run loop and wakes it.
    public func submit(_ item: any Runnable) {
        runLoop.perform(inModes: modes) { ThreadState.current.running(self) { item.run() } }
        // `perform` alone does not wake a sleeping loop on every platform; a timer due now does.
        let wake = Timer(timeInterval: 0, repeats: false) { _ in }
        for mode in modes { runLoop.add(wake, forMode: mode) }
    }
}
