import ActorPromise
import ModernSDK

/// A view model: its state lives on the main actor, handlers that touch it run there.
@MainActor final class RowsModel {
    private let services: Services
    private(set) var rows: [String] = []
    private(set) var status = "idle"
    private(set) var steps: [String] = []

    init(services: Services) { self.services = services }

    /// Loads the first `count` pages at once and shows them.
    func loadPages(_ count: Int) -> Promise<Void> {
        status = "loading"
        return Promise.all((0..<count).map { services.rows(page: $0) })
            .then(on: .main) { pages in
                self.rows = pages.flatMap { $0 }
                self.status = "loaded \(pages.count) pages"
            }
    }

    /// Loads `page`, falling back a page per failed attempt, and shows it or the error.
    func loadWithRetry(page: Int) -> Promise<Void> {
        let services = services
        return Promise.retry(attempts: 3) { attempt in services.rows(page: page - attempt) }
            .then(on: .main) { rows in self.rows = rows }
            .catch(on: .main) { error in self.status = "failed: \(error)" }
    }

    /// Shows a text from the Swift 5 SDK, or why it failed.
    func showText(_ path: String) -> Promise<Void> {
        services.text(path)
            .then(on: .main) { text in self.status = text }
            .catch(on: .main) { error in self.status = "failed: \(error)" }
    }

    /// Sizes of `paths`, two at a time, with each step shown as it happens, then the sizes.
    func sizes(_ paths: [String]) -> Promise<[Int]> {
        let services = services
        let progress = ProgressReporting.on(.main) { step in self.steps.append(step.description) }
        return Promise.map(paths, maxConcurrency: 2, progress: progress) { services.count($0) }
            .then(on: .main) { sizes in
                self.status = "sizes \(sizes)"
                return sizes
            }
    }

    /// A slow page, shown when it comes; `value` is what a SwiftUI `.task` awaits, so cancelling
    /// that task cancels the request.
    func slowPage(_ page: Int, started: @escaping @Sendable (SlowRequest) -> Void) async throws {
        rows = try await services.slowRows(page: page, started: started).value
    }
}
