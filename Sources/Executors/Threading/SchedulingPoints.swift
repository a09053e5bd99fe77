import Synchronization

/// The places where the library's threads meet: every atomic operation and every lock of the
/// promise core's concurrent protocol calls one of these first. (The operations themselves are
/// ordered by the ``MemoryModel`` in the same build.)
///
/// They compile to nothing unless the package is built with `-DACTORPROMISE_INTERLEAVINGS`, the
/// interleaving checker's build (the tests' `InterleavingTests`, run by `.ci/run`). In that build
/// the checker installs ``InterleavingHooks`` once for the process; a thread it runs stops at each
/// point and lets the checker decide which of its threads goes on, so that it can run a scenario
/// once for every schedule up to a bound. Threads the checker does not run pass every point at
/// once.
#if ACTORPROMISE_INTERLEAVINGS
/// What the checker does at each point.
package final class InterleavingHooks: Sendable {
    /// Before an atomic operation; `label` names it in the checker's traces.
    package let point: @Sendable (StaticString) -> Void
    /// Before a lock is taken: returns once this thread may take it.
    package let willLock: @Sendable (ObjectIdentifier) -> Void
    /// After a lock was let go.
    package let didUnlock: @Sendable (ObjectIdentifier) -> Void
    /// A thread that would block (on a semaphore, a condition variable): returns once `condition`
    /// holds, the checker running other threads meanwhile — or `false` at once if the calling
    /// thread is not one the checker runs, which then blocks for real. A `timed` wait also ends
    /// when no other thread can run: its time is up.
    package let block: @Sendable (_ condition: @escaping () -> Bool, _ timed: Bool) -> Bool
    /// The calling thread's index among the checked threads of the run, if the checker runs it
    /// and is not merely evaluating a condition on its behalf (the ``MemoryModel`` orders its
    /// operations).
    package let threadIndex: @Sendable () -> Int?
    /// Which of `options` stores a load reads (`0`: the newest; each older one a stale read the
    /// checker explores within its budget).
    package let chooseRead: @Sendable (_ options: Int) -> Int

    package init(
        point: @escaping @Sendable (StaticString) -> Void,
        willLock: @escaping @Sendable (ObjectIdentifier) -> Void,
        didUnlock: @escaping @Sendable (ObjectIdentifier) -> Void,
        block: @escaping @Sendable (_ condition: @escaping () -> Bool, _ timed: Bool) -> Bool,
        threadIndex: @escaping @Sendable () -> Int?,
        chooseRead: @escaping @Sendable (_ options: Int) -> Int
    ) {
        self.point = point
        self.willLock = willLock
        self.didUnlock = didUnlock
        self.block = block
        self.threadIndex = threadIndex
        self.chooseRead = chooseRead
    }
}

/// The hooks in force: installed once per process by the checker, never removed. (A `Mutex`,
/// not a `LockedState`, whose own lock is a scheduling point.)
private let installed = Mutex<InterleavingHooks?>(nil)

/// Installs `hooks` for the rest of the process (the checker does, once).
package func installInterleavingHooks(_ hooks: InterleavingHooks) {
    installed.withLock { $0 = hooks }
}

/// The hooks, if installed.
private var installedHooks: InterleavingHooks? {
    installed.withLock { $0 }
}

@usableFromInline
package func reachSchedulingPoint(_ label: StaticString) { installedHooks?.point(label) }

@usableFromInline
package func reachLock(_ lock: AnyObject) {
    installedHooks?.willLock(ObjectIdentifier(lock))
    MemoryModel.shared.acquire(ObjectIdentifier(lock))
}

@usableFromInline
package func reachUnlock(_ lock: AnyObject) {
    MemoryModel.shared.release(ObjectIdentifier(lock))
    installedHooks?.didUnlock(ObjectIdentifier(lock))
}

/// The checked thread running this code, for the memory model: `nil` on other threads, and while
/// the checker evaluates a waiting thread's condition (see ``InterleavingHooks/threadIndex``).
func modelThreadIndex() -> Int? { installedHooks?.threadIndex() }

/// Which of `options` stores a load reads (see ``InterleavingHooks/chooseRead``).
func modelChooseRead(_ options: Int) -> Int { installedHooks?.chooseRead(options) ?? 0 }

/// Blocks a checked thread until `condition` holds (or, `timed`, until no other thread can run),
/// letting the checker run others meanwhile; returns `false` at once on any other thread (see
/// ``InterleavingHooks/block``).
package func blockAtSchedulingPoint(timed: Bool = false, until condition: @escaping () -> Bool) -> Bool {
    installedHooks?.block(condition, timed) ?? false
}

/// Whether the calling thread is one the checker runs.
package var isCheckedThread: Bool { installedHooks?.threadIndex() != nil }
#endif

/// A scheduling point before an atomic operation (nothing outside the checker's build).
@inlinable @inline(__always)
package func schedulingPoint(_ label: StaticString) {
    #if ACTORPROMISE_INTERLEAVINGS
    reachSchedulingPoint(label)
    #endif
}

/// A scheduling point before `lock` is taken (nothing outside the checker's build).
@inlinable @inline(__always)
package func schedulingPointBeforeLock(_ lock: AnyObject) {
    #if ACTORPROMISE_INTERLEAVINGS
    reachLock(lock)
    #endif
}

/// Tells the checker that `lock` was let go (nothing outside the checker's build).
@inlinable @inline(__always)
package func schedulingPointAfterUnlock(_ lock: AnyObject) {
    #if ACTORPROMISE_INTERLEAVINGS
    reachUnlock(lock)
    #endif
}
