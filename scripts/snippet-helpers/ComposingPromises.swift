// Stand-ins for what the Composing promises article's snippets leave to the reader.
import ActorPromise
import Foundation

struct Photo: Sendable {}
struct Image: Sendable {}
struct Profile: Sendable {}

let photos = [Photo(), Photo()]
let id = 7

func render(_ photo: Photo) -> Promise<Image> { Promise(value: Image()) }
func fetch(_ url: URL) -> Promise<Data> { Promise(value: Data()) }

struct API: Sendable {
    func fetchProfile(_ id: Int) -> Promise<Profile> { Promise(value: Profile()) }
}
let api = API()
