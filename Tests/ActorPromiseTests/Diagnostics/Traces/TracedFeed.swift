import ActorPromise
import Dispatch
import Synchronization

// An app's data layer as the failure-trace tests use it: a callback SDK wrapped in promises, a
// retried request, a `map`, a `zip` with a second request and a `timeout`. The tests name the
// lines of this file, so the layout of the functions below is part of what they check.

/// What the feed SDK fails with.
enum FeedFailure: Error, Equatable {
    case notFound(page: Int)
    case unreadable
}

/// A callback SDK: answers on a queue of its own; pages past `pages` do not exist, and a page in
/// `silent` never answers (the SDK keeps its completion, as a request that hangs does).
final class CallbackFeed: Sendable {
    let pages: Int
    let silent: Set<Int>
    private let queue = DispatchQueue(label: "callback-feed")
    private let hanging = Mutex<[@Sendable (Result<[String], FeedFailure>) -> Void]>([])

    init(pages: Int, silent: Set<Int> = []) {
        self.pages = pages
        self.silent = silent
    }

    func rows(page: Int, completion: @escaping @Sendable (Result<[String], FeedFailure>) -> Void) {
        guard !silent.contains(page) else { return hanging.withLock { $0.append(completion) } }
        queue.async { [pages] in
            completion(page < pages ? .success(["row 1 of \(page)", "row 2 of \(page)"]) : .failure(.notFound(page: page)))
        }
    }
}

/// The repository: every promise it makes is on a line the tests know (`FeedLines`).
struct FeedRepository: Sendable {
    let feed: CallbackFeed
    let scheduler: any PromiseScheduler

    func page(_ number: Int) -> Promise<[String]> {
        Promise { resolver in feed.rows(page: number, completion: resolver.completion()) }   // line 42
    }

    func summary(page number: Int) -> Promise<String> {
        let rows = Promise<[String]>.retry(attempts: 3) { _ in page(number) }   // line 46
            .map { $0.joined(separator: ", ") }                                 // line 47
        let count = page(0).map { $0.count }                                    // line 48
        return zip(rows, count)                                                 // line 49
            .map { "\($0) (\($1) on the first page)" }                          // line 50
            .timeout(after: .seconds(30), scheduler: scheduler)                 // line 51
    }

    func parsed(page number: Int) -> Promise<Int> {
        page(number).map { rows -> Int in                                       // line 55
            guard let first = rows.first, first.hasPrefix("#") else { throw FeedFailure.unreadable }   // line 56
            return first.count
        }
    }
}

/// The lines of `TracedFeed.swift` the traces name.
enum FeedLines {
    static let file = "ActorPromiseTests/TracedFeed.swift"
    static let wrap = 42, retry = 46, rowsMap = 47, zip = 49, summaryMap = 50, timeout = 51, parse = 55

    static func at(_ line: Int) -> String { "\(file):\(line)" }
}
