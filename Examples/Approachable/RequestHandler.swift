import ActorPromise

/// A server's request handler: nonisolated code that awaits promises, many requests at once.
struct RequestHandler: Sendable {
    let services: Services

    /// The rows of `page` as one line; throws the feed's error.
    func handle(page: Int) async throws -> String {
        try await services.rows(page: page).map { $0.joined(separator: ", ") }.value
    }

    /// Handles `pages` concurrently, in order; a failed page gives its error's description.
    func handleAll(_ pages: [Int]) async -> [String] {
        await withTaskGroup(of: (Int, String).self) { group in
            for (index, page) in pages.enumerated() {
                group.addTask {
                    // The await stays out of the tuple: Swift 6.3.1's optimizer loses `index` in
                    // `(index, try await …)` inside a `do` in a child task (release builds only).
                    do {
                        let line = try await handle(page: page)
                        return (index, line)
                    } catch {
                        return (index, "\(error)")
                    }
                }
            }
            var lines = [String](repeating: "", count: pages.count)
            for await (index, line) in group { lines[index] = line }
            return lines
        }
    }
}
