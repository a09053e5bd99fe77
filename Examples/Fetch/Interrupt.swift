import ActorPromise
import Dispatch
import Foundation

/// Cancels `promise` when the process receives SIGINT (Ctrl-C); keep the returned source alive.
///
/// A function of its own, not code in `main.swift`: top-level code is main-actor isolated, so a
/// handler closure written there would be inferred `@MainActor` — and dispatch runs a signal
/// source's handler on one of its own threads, where Swift 6 stops the program on that mismatch.
func cancelOnInterrupt<Value>(_ promise: Promise<Value>, saying message: String) -> any DispatchSourceSignal {
    signal(SIGINT, SIG_IGN)
    let source = DispatchSource.makeSignalSource(signal: SIGINT, queue: .global())
    source.setEventHandler {
        FileHandle.standardError.write(Data("\n\(message)\n".utf8))
        promise.cancel()
    }
    source.resume()
    return source
}
