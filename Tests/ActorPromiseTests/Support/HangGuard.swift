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
enum HangClock {
    /// The clock every hang guard of the suite uses: a `ManualScheduler` that its own task moves
    /// on by a tenth of a second each time it has slept that long and had its turn again.
    static let shared: ManualScheduler = {
        let clock = ManualScheduler()
        Task.detached {
            while true {
                try? await Task.sleep(for: .milliseconds(100))
                clock.advance(by: .milliseconds(100))
            }
        }
        return clock
    }()
}

/// A moment `hangGuard` from when it was made, on the ``HangClock``: for code that polls or
/// blocks a thread.
struct HangDeadline {
    private let due = HangClock.shared.elapsed + hangGuard

    /// Whether the guard's time has run out.
    var hasPassed: Bool { HangClock.shared.elapsed >= due }
}

extension Promise {
    /// This promise, or a rejection with `timedOut` once `hangGuard` has passed on the
    /// ``HangClock`` without it settling: a wait that tells lost work from a slow run.
    func guardedAgainstHang() -> Promise<Value> { timeout(after: hangGuard, scheduler: HangClock.shared) }
}
