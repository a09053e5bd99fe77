import ActorPromise
import ActorPromiseExecutors
import Foundation

/// How long a test waits for something that must happen before it calls it lost, on the
/// ``HangClock``: a guard that tells a hang from a slow run, not a time limit on the work.
/// `ACTORPROMISE_HANG_GUARD` (seconds) sets it; CI's sanitizer steps, where every test is many
/// times slower, set it higher.
let hangGuard = Duration.seconds(Int(ProcessInfo.processInfo.environment["ACTORPROMISE_HANG_GUARD"] ?? "") ?? 120)

/// The clock hang guards are measured on: it moves a tenth of a second each time a task that
/// slept that long has had its turn on Swift's global executor again.
///
/// A guard on the wall clock expires while what it guards is merely held up. When the whole
/// process is paused (a virtual machine stopped by its host for a while), the guard fires the
/// moment the process resumes, in a race with the work, which resumes at the same moment. And the
/// suite runs its tests side by side on the global executor's few threads (two on a two-core
/// machine), so each step of a test waits its turn behind the steps of all the others. This
/// clock moves one tick through a pause, however long, and slowly while that queue is long, since
/// its own task waits in it: a guard on it expires only after the awaited work has had as many
/// turns as an idle machine gives it in `hangGuard`.
final class HangClock: PromiseScheduler, ScheduledActionQueue {
    /// The clock every hang guard of the suite uses.
    static let shared = HangClock()

    private struct State {
        /// Seconds counted so far.
        var now = 0.0
        /// Actions waiting for their time.
        var pending: [(due: Double, action: ScheduledAction)] = []
    }

    private let state = LockedState(State())

    private init() {
        Task.detached { [self] in
            while true {
                try? await Task.sleep(for: .milliseconds(100))
                tick()
            }
        }
    }

    /// Seconds counted so far.
    var now: Double { state.withLock { $0.now } }

    func schedule(after delay: Duration, _ action: @escaping @Sendable () -> Void) -> ScheduledAction {
        let handle = ScheduledAction(action)
        handle.queue = self
        state.withLock { $0.pending.append((due: $0.now + seconds(delay), handle)) }
        return handle
    }

    func remove(_ action: ScheduledAction) {
        state.withLock { $0.pending.removeAll { $0.action === action } }
    }

    /// Counts a tenth of a second and runs the actions that fall due.
    private func tick() {
        let due = state.withLock { state -> [ScheduledAction] in
            state.now += 0.1
            let now = state.now
            defer { state.pending.removeAll { $0.due <= now } }
            return state.pending.filter { $0.due <= now }.map(\.action)
        }
        for action in due { action.fire() }
    }
}

/// A moment `hangGuard` from when it was made, on the ``HangClock``: for code that polls or
/// blocks a thread.
struct HangDeadline {
    private let due = HangClock.shared.now + seconds(hangGuard)

    /// Whether the guard's time has run out.
    var hasPassed: Bool { HangClock.shared.now >= due }
}

extension Promise {
    /// This promise, or a rejection with `timedOut` once `hangGuard` has passed on the
    /// ``HangClock`` without it settling: a wait that tells lost work from a slow run.
    func guardedAgainstHang() -> Promise<Value> { timeout(after: hangGuard, scheduler: HangClock.shared) }
}
