// Fetch: downloads URLs, a few at a time, and prints a line as each one finishes.
//
//   swift run Fetch [--max-concurrent N] [--attempts N] URL...
//
// A failed request (a network error or a 5xx) is retried with back-off. Ctrl-C cancels every
// request in flight and exits with status 130. `kill -USR1 <pid>` prints every promise still
// pending, where it was made and what it waits on. Exit status 0 when all downloads succeed, 1 when
// one failed. Synchronous on purpose: the main thread blocks in `wait()`, which serves the main
// actor meanwhile, so the `.main` handlers and the main-actor summary below run.
import ActorPromise
import Dispatch
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

// Track pending promises in release builds too (debug builds always do), for SIGUSR1's report.
PromiseDiagnostics.tracksPending = true
let pendingReport = printPendingOnSignal()

var maxConcurrent = 4
var attempts = 3
var urls: [URL] = []
var arguments = CommandLine.arguments.dropFirst()
while let argument = arguments.popFirst() {
    switch argument {
    case "--max-concurrent": maxConcurrent = arguments.popFirst().flatMap { Int($0) } ?? maxConcurrent
    case "--attempts": attempts = arguments.popFirst().flatMap { Int($0) } ?? attempts
    default:
        guard let url = URL(string: argument), url.scheme != nil else {
            FileHandle.standardError.write(Data("fetch: not a URL: \(argument)\n".utf8))
            exit(2)
        }
        urls.append(url)
    }
}
guard !urls.isEmpty else {
    print("usage: Fetch [--max-concurrent N] [--attempts N] URL...")
    exit(2)
}

let session = URLSession(configuration: .ephemeral)
let total = urls.count
let retries = attempts
let batch = Promise<Int>.map(urls, maxConcurrency: maxConcurrent, progress: .on(.main) { progress in
    print("[\(progress)] \(Int(progress.fractionCompleted * 100))%")
}) { url in
    downloadRetrying(url, with: session, attempts: retries).then(on: .main) { data -> Int in
        print("  \(url.absoluteString): \(data.count) bytes")
        return data.count
    }
}

// Ctrl-C: cancel the batch (and so every request in flight); `wait()` below then throws.
let interrupt = cancelOnInterrupt(batch, saying: "fetch: interrupted, cancelling the downloads")

// The summary is async main-actor code awaiting the batch: the main thread, blocked in `wait()`,
// runs it (and it comes after the last progress line, which was queued on the main thread first).
let summary = Promise { @MainActor in
    let sizes = try await batch.value
    return "fetched \(sizes.count) of \(total) URLs, \(sizes.reduce(0, +)) bytes"
}
do {
    print(try summary.wait())
    exit(0)
} catch where error.isCancellation {
    print("cancelled")
    exit(130)
} catch {
    print("failed: \(error)")
    exit(1)
}
