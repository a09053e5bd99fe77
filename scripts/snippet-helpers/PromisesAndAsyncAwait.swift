// Stand-ins for what the Promises and async/await article's snippets leave to the reader.
import ActorPromise
import Foundation

struct User: Sendable {}
struct Image: Sendable {}
struct Photo: Sendable {}
struct Item: Sendable {}

let id = 7
let photo = Photo()
let item = Item()
let url = URL(fileURLWithPath: "/data")
let promise = Promise(value: 1)

func loadUser(id: Int) -> Promise<User> { Promise(value: User()) }
func loadUser(_ id: Int) -> Promise<User> { Promise(value: User()) }
func loadUser(_ id: Int, completion: @escaping @Sendable (User) -> Void) { completion(User()) }
func loadAvatar(_ user: User) -> Promise<Image> { Promise(value: Image()) }
func loadAvatar(_ user: User, completion: @escaping @Sendable (Image) -> Void) { completion(Image()) }
func show(_ image: Image) {}

struct Renderer: Sendable {
    func thumbnail(for photo: Photo) async throws -> Image { Image() }
}
let renderer = Renderer()

@MainActor final class ImageView {
    var image: Image?
}
@MainActor let imageView = ImageView()

final class DataTask: Sendable {
    func cancel() {}
}

struct API: Sendable {
    func fetch(_ url: URL, completion: @escaping @Sendable (Result<Data, any Error>) -> Void) -> DataTask {
        completion(.success(Data()))
        return DataTask()
    }
}
let api = API()

/// An Objective-C-style SDK: a value or an error, both optional.
struct LegacyLoader: Sendable {
    func load(_ url: URL, handler: @escaping @Sendable (Data?, (any Error)?) -> Void) { handler(Data(), nil) }
}
let legacy = LegacyLoader()

struct Store: Sendable {
    func save(_ item: Item, completion: @escaping @Sendable ((any Error)?) -> Void) { completion(nil) }
}
let store = Store()

struct ArticleClient: Sendable {
    func load(_ path: String, completion: @escaping @Sendable (Data?, (any Error)?) -> Void) { completion(Data(), nil) }
}
let client = ArticleClient()
