// Stand-ins for what the Getting started article's snippets leave to the reader.
import ActorPromise
import Foundation

struct User: Sendable {
    var avatarURL: URL
}

struct Image: Sendable {
    static let placeholder = Image()
}

/// A request of a callback API that can be cancelled.
final class Request: Sendable {
    func cancel() {}
}

struct API: Sendable {
    func fetchUser(_ id: Int, completion: @escaping @Sendable (Result<User, any Error>) -> Void) -> Request {
        completion(.success(User(avatarURL: URL(fileURLWithPath: "/avatar.png"))))
        return Request()
    }
}
let api = API()

final class Spinner: Sendable {
    func stop() {}
}
let spinner = Spinner()

func download(_ url: URL) -> Promise<Image> { Promise(value: Image()) }
func loadImage(_ url: URL) -> Promise<Image> { Promise(value: Image()) }
func render(_ user: User) -> String { "\(user)" }

/// A callback API that lists rows a page at a time.
struct FeedClient: Sendable {
    func rows(page: Int, completion: @escaping @Sendable (Result<[String], any Error>) -> Void) {
        completion(.success(["row \(page)"]))
    }
}
let services = Services(feed: FeedClient())

/// The chain the article builds in one snippet and uses in the next.
let avatar = Promise(value: Image.placeholder)
