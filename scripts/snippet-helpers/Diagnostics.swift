// Stand-ins for what the Diagnostics article's snippets leave to the reader.
import ActorPromise

struct Profile: Sendable {}

struct ProfileRepository: Sendable {
    func profile() -> Promise<Profile> { Promise(value: Profile()) }
}
