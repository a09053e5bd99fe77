import Foundation

/// A client written before Swift concurrency: plain completion closures, called on a global queue.
/// Built in Swift 5 mode, as an SDK of that era is, so Swift 6 code sees its closures as neither
/// `Sendable` nor isolated.
public final class Swift5Client {
    public init() {}

    /// Calls back with the path's bytes, on another thread.
    public func load(_ path: String, completion: @escaping (Data?, Error?) -> Void) {
        DispatchQueue.global().async { completion(Data(path.utf8), nil) }
    }

    /// Calls back with the number of bytes of the path, or `error` if given, on another thread.
    public func count(_ path: String, failing error: Error? = nil, completion: @escaping (Result<Int, Error>) -> Void) {
        DispatchQueue.global().async { completion(error.map { .failure($0) } ?? .success(path.utf8.count)) }
    }
}
