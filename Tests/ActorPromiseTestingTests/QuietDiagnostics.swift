import ActorPromise
import Synchronization

/// The abandonments these tests provoke on purpose (a runtime released with a timer pending, a
/// completion handler dropped) are recorded here instead of printed as warnings.
///
/// The diagnostics handler is process-wide and every test target runs in one process: whichever
/// handler was installed before is kept and called too, so another target's recording log still
/// gets its reports, and a log installed later simply takes over.
enum QuietDiagnostics {
    static let abandoned = Mutex<[PromiseError]>([])

    private static let installed: Void = {
        let previous = PromiseDiagnostics.abandonmentHandler
        PromiseDiagnostics.abandonmentHandler = { error in
            abandoned.withLock { $0.append(error) }
            previous?(error)
        }
    }()

    static func install() { installed }
}
