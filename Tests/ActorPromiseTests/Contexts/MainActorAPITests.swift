import Testing
import ActorPromise

/// A view model as an app writes it: main-actor state, promise handlers that touch it.
@MainActor
final class ProfileViewModel {
    var title = ""
    var log: [String] = []
    var spinner = true

    /// Every handler form, written without annotations and with `@MainActor`.
    func load(_ profile: Promise<Int>) -> Promise<Void> {
        profile
            .then(on: .main) { value in self.title = "user \(value)" }
            .then(on: .main) { @MainActor _ in self.log.append("then") }
            .tap(on: .main) { _ in self.log.append("tap") }
            .ensure(on: .main) { self.spinner = false }
    }

    func handleFailure(_ profile: Promise<Int>) -> Promise<Int> {
        profile
            .recover(on: .main) { error in self.log.append("recover \(error)"); return -1 }
    }

    func report(_ profile: Promise<Int>) {
        profile.catch(on: .main) { _ in self.log.append("catch") }
        profile.whenComplete(on: .main) { (result: Result<Int, any Error>) in
            if case .failure = result { self.log.append("whenComplete") }
        }
    }
}

@Suite("R9 main-actor handlers type-check and run on the main actor")
struct MainActorAPITests {
    @Test("R9 a @MainActor view model updates its state from then/tap/ensure on .main")
    @MainActor
    func viewModel() async throws {
        let model = ProfileViewModel()
        let (profile, resolver) = Promise<Int>.pending()
        let done = model.load(profile)
        resolver.fulfill(7)
        try await done.value
        #expect(model.title == "user 7")
        #expect(model.log == ["then", "tap"])
        #expect(!model.spinner)
    }

    @Test("R9 catch, recover and whenComplete on .main see a rejection, cancellation included")
    @MainActor
    func errorForms() async throws {
        let model = ProfileViewModel()
        let (profile, resolver) = Promise<Int>.pending()
        let recovered = model.handleFailure(profile)
        model.report(profile)
        profile.cancel()
        _ = await recovered.outcome
        // Main-context handlers of one promise run in registration order (R2): once this last
        // one has run, the three above have.
        _ = await profile.ensure(on: .main) {}.outcome
        let seen = Set(model.log.map { $0.split(separator: " ").first.map(String.init) ?? "" })
        #expect(seen.isSuperset(of: ["recover", "catch", "whenComplete"]))
        _ = resolver
    }
}

/// The README's main-actor example, verbatim, so that it keeps compiling.
struct User: Sendable { var name: String }

@MainActor final class ProfileModel {
    var title = ""
    func show(_ user: Promise<User>) {
        user.then(on: .main) { user in self.title = user.name }   // isolated to the main actor
        user.catch(on: .main) { error in self.title = "unavailable" } // cancellation included
    }

    /// The explicit form, which also works where the unannotated one does not (a `Void` promise).
    func hide(_ done: Promise<Void>) {
        done.catch(on: .main) { @MainActor error in self.title = "failed" }
    }
}

@Suite("R9 the README's main-actor example")
struct ReadmeExampleTests {
    @Test("R9 the README's ProfileModel shows the name, or 'unavailable' on cancellation")
    @MainActor
    func readme() async throws {
        let model = ProfileModel()
        let user = Promise(value: User(name: "Ada"))
        model.show(user)
        // A later main-context handler of the same promise runs after the model's (R2).
        _ = await user.ensure(on: .main) {}.outcome
        #expect(model.title == "Ada")

        let (pending, resolver) = Promise<User>.pending()
        model.show(pending)
        pending.cancel()
        _ = await pending.ensure(on: .main) {}.outcome
        #expect(model.title == "unavailable")

        let (done, doneResolver) = Promise<Void>.pending()
        model.hide(done)
        doneResolver.reject(TestError())
        _ = await done.ensure(on: .main) {}.outcome
        #expect(model.title == "failed")
        _ = resolver
    }
}
