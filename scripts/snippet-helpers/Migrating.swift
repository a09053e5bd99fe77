// Stand-ins for what the Migrating article's snippets leave to the reader.
import ActorPromise
import Foundation

struct User: Sendable {
    typealias ID = Int
}
struct Profile: Sendable {}

final class Request: Sendable {
    func cancel() {}
}

struct ProfileClient: Sendable {
    func loadProfile(_ id: User.ID, completion: @escaping @Sendable (Result<Profile, any Error>) -> Void) -> Request {
        completion(.success(Profile()))
        return Request()
    }
}
let client = ProfileClient()
let url = URL(fileURLWithPath: "/data")

@discardableResult
func download(_ url: URL, completion: @escaping @Sendable (Result<Data, any Error>) -> Void) -> Request {
    completion(.success(Data()))
    return Request()
}
