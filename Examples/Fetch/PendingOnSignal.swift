import ActorPromise
import Dispatch
import Foundation

/// Prints every pending promise — where it was made, for how long, and what it waits on — to
/// standard error when the process receives SIGUSR1 (`kill -USR1 <pid>`); keep the returned source
/// alive. With `FETCH_PENDING_DOT` set to a path, also writes the same graph there for Graphviz.
///
/// A function of its own for the reason `cancelOnInterrupt` is (see `Interrupt.swift`).
func printPendingOnSignal() -> any DispatchSourceSignal {
    signal(SIGUSR1, SIG_IGN)
    let source = DispatchSource.makeSignalSource(signal: SIGUSR1, queue: .global())
    source.setEventHandler {
        let snapshot = PromiseDiagnostics.pendingSnapshot()
        FileHandle.standardError.write(Data("\(snapshot)\n".utf8))
        if let path = ProcessInfo.processInfo.environment["FETCH_PENDING_DOT"] {
            _ = FileManager.default.createFile(atPath: path, contents: Data(snapshot.dot.utf8))
        }
    }
    source.resume()
    return source
}
