import Dispatch
import Synchronization

/// What a feed page failed with.
public enum FeedError: Error, Equatable, Sendable {
    case notFound(page: Int)
}

/// A client written for Swift 6: `Sendable`, with `@Sendable` completions that carry a typed
/// error, called back on a global queue — the shape of a current SDK.
public final class FeedClient: Sendable {
    /// How many pages there are.
    public let pages: Int

    public init(pages: Int = 3) { self.pages = pages }

    /// Calls back with the rows of `page`, or `FeedError.notFound` past the last page, on
    /// another thread.
    public func rows(page: Int, completion: @escaping @Sendable (Result<[String], FeedError>) -> Void) {
        DispatchQueue.global().async {
            completion(page < self.pages ? .success((0..<2).map { "page \(page) row \($0)" }) : .failure(.notFound(page: page)))
        }
    }

    /// A request that calls back only when told to, and can be cancelled first: what a slow
    /// network call looks like to its caller.
    public func slowRows(page: Int, completion: @escaping @Sendable (Result<[String], FeedError>) -> Void) -> SlowRequest {
        SlowRequest { completion(.success(["slow page \(page)"])) }
    }
}

/// A request that answers when ``finish()`` is called, unless it was cancelled before.
public final class SlowRequest: Sendable {
    private let state = Mutex<(answer: (@Sendable () -> Void)?, cancelled: Bool)>((nil, false))

    init(answer: @escaping @Sendable () -> Void) { state.withLock { $0.answer = answer } }

    /// Whether ``cancel()`` was called before the answer.
    public var isCancelled: Bool { state.withLock { $0.cancelled } }

    /// Cancels the request: it will not answer.
    public func cancel() { state.withLock { $0 = (nil, true) } }

    /// Answers now, on another thread, unless cancelled.
    public func finish() {
        let answer = state.withLock { state in defer { state.answer = nil }; return state.answer }
        if let answer { DispatchQueue.global().async { answer() } }
    }
}
