import ActorPromise
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// A response whose status was not 2xx: an error, not a value.
struct HTTPStatusError: Error, CustomStringConvertible {
    let statusCode: Int
    var description: String { "HTTP \(statusCode)" }
}

/// The body of a 2xx response to a GET of `url`, through URLSession's completion handler, which
/// the resolver makes: what the closure returns fulfils the promise, what it throws rejects it.
/// Cancelling the promise — or losing its last waiter — cancels the request.
func download(_ url: URL, with session: URLSession) -> Promise<Data> {
    Promise { resolver in
        let task = session.dataTask(with: url, completionHandler: resolver.completion { data, response, error in
            if let error { throw error }
            let status = (response as? HTTPURLResponse)?.statusCode ?? 0
            guard (200..<300).contains(status), let data else { throw HTTPStatusError(statusCode: status) }
            return data
        })
        resolver.onCancel { task.cancel() }
        task.resume()
    }
}

/// `download`, tried up to `attempts` times with exponential back-off; a 4xx is not retried.
func downloadRetrying(_ url: URL, with session: URLSession, attempts: Int) -> Promise<Data> {
    Retryable { _ in download(url, with: session) }
        .retry(attempts: attempts, delay: .exponential(initial: .milliseconds(200))) { error in
            if error.isCancellation { return false }
            if let status = error as? HTTPStatusError { return status.statusCode >= 500 }
            return true
        }
        .run()
}
