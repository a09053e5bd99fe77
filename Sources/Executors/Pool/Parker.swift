import Dispatch
#if ACTORPROMISE_INTERLEAVINGS
import Synchronization
#endif

/// The semaphore a pool worker sleeps on while it is parked: a signal left before the wait is
/// kept, so a wake-up sent between deciding to park (under the pool's lock) and sleeping is not
/// lost.
///
/// In the interleaving checker's build a worker that a scenario runs does not sleep for real: its
/// wait is a point where the checker runs other threads until a signal is there, or until the
/// scenario says the pool may stop (``stopsWhen(_:)``), and a signal is a scheduling point.
final class Parker: Sendable {
    private let semaphore = DispatchSemaphore(value: 0)
    #if ACTORPROMISE_INTERLEAVINGS
    /// The signals not yet taken, mirrored for the checker (which cannot see into the semaphore).
    private let permits = Atomic<Int>(0)
    /// Set once a checked worker's wait ended because its scenario allows the pool to stop.
    private let stoppedFlag = Atomic<Bool>(false)
    /// When a checked worker may leave its loop instead of waiting for a signal.
    private let stop = Mutex<(@Sendable () -> Bool)?>(nil)
    #endif

    /// Wakes the worker, now or at its next wait.
    @inline(__always)
    func signal() {
        #if ACTORPROMISE_INTERLEAVINGS
        schedulingPoint("pool.wake")
        permits.add(1, ordering: .sequentiallyConsistent)
        #endif
        semaphore.signal()
    }

    /// Sleeps until a signal comes (one left earlier returns at once). In the checker's build,
    /// returns `false` instead if a checked worker's scenario lets the pool stop first.
    @inline(__always)
    func wait() -> Bool {
        #if ACTORPROMISE_INTERLEAVINGS
        let stop = self.stop.withLock { $0 }
        let checked = blockAtSchedulingPoint { [self] in
            permits.load(ordering: .sequentiallyConsistent) > 0 || stop?() == true
        }
        if checked, permits.load(ordering: .sequentiallyConsistent) == 0 {
            stoppedFlag.store(true, ordering: .sequentiallyConsistent)
            return false
        }
        semaphore.wait()
        permits.subtract(1, ordering: .sequentiallyConsistent)
        return true
        #else
        semaphore.wait()
        return true
        #endif
    }

    /// Whether a checked worker's wait ended because its scenario let the pool stop (always
    /// `false` outside the checker's build).
    @inline(__always)
    var isStopped: Bool {
        #if ACTORPROMISE_INTERLEAVINGS
        stoppedFlag.load(ordering: .sequentiallyConsistent)
        #else
        false
        #endif
    }

    #if ACTORPROMISE_INTERLEAVINGS
    /// Lets a checked worker leave its loop, once parked without a signal, when `condition` holds.
    func stopsWhen(_ condition: @escaping @Sendable () -> Bool) {
        stop.withLock { $0 = condition }
        stoppedFlag.store(false, ordering: .sequentiallyConsistent)
    }
    #endif
}
