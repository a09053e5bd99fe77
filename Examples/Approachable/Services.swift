import ActorPromise
import Foundation
@preconcurrency import LegacySDK
import ModernSDK

/// The app's wrappers of its two SDKs — a current one (`@Sendable`, typed-error completions) and
/// one built before Swift concurrency (plain closures, called on another thread) — written the
/// way the docs show. `nonisolated` because actors and request handlers use it too: in a target
/// whose default isolation is the main actor, a type is otherwise main-actor code.
nonisolated struct Services: Sendable {
    let feed: FeedClient
    let legacy = Swift5Client()

    init(pages: Int = 3) { feed = FeedClient(pages: pages) }

    /// A page of rows; rejected with `FeedError.notFound` past the last page.
    func rows(page: Int) -> Promise<[String]> {
        Promise { resolver in feed.rows(page: page, completion: resolver.completion()) }
    }

    /// The text at `path`, from the Swift 5 SDK, its callback mapped by `completion { … }`.
    func text(_ path: String) -> Promise<String> {
        Promise { resolver in
            legacy.load(path, completion: resolver.completion { data, error in
                if let error { throw error }
                return String(decoding: data ?? Data(), as: UTF8.self)
            })
        }
    }

    /// How many bytes `path` has, from the Swift 5 SDK's `Result` callback.
    func count(_ path: String, failing error: (any Error)? = nil) -> Promise<Int> {
        Promise { resolver in legacy.count(path, failing: error, completion: resolver.completion()) }
    }

    /// A slow page: `started` gets the request, which answers when finished; cancelling the
    /// promise cancels the request.
    func slowRows(page: Int, started: @escaping @Sendable (SlowRequest) -> Void) -> Promise<[String]> {
        Promise { resolver in
            let request = feed.slowRows(page: page, completion: resolver.completion())
            resolver.onCancel { request.cancel() }
            started(request)
        }
    }
}

/// Work of one's own for an execution context, as Execution contexts writes it: a final class that
/// conforms to `Runnable`, which the compiler checks is `Sendable`. `nonisolated` because a context
/// runs it on its own thread: in a target whose default isolation is the main actor it would
/// otherwise be main-actor code.
nonisolated final class Thumbnail: Runnable {
    let path: String
    let done: Resolver<String>

    init(path: String, done: Resolver<String>) {
        self.path = path
        self.done = done
    }

    func run() { done.fulfill("thumbnail of \(path)") }

    func discard() { done.reject(ThumbnailDropped()) }
}

/// A ``Thumbnail`` its context dropped without running it.
nonisolated struct ThumbnailDropped: Error {}
