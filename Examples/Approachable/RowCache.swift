import ActorPromise

/// An actor that caches pages: the handler that stores a page runs isolated to it.
actor RowCache {
    private let services: Services
    private var pages: [Int: [String]] = [:]

    init(services: Services) { self.services = services }

    /// The page, from the cache or the feed.
    func rows(page: Int) -> Promise<[String]> {
        if let cached = pages[page] { return Promise(value: cached) }
        return services.rows(page: page).then(isolatedTo: self) { cache, rows in
            cache.pages[page] = rows
            return rows
        }
    }

    /// How many pages are cached.
    var count: Int { pages.count }
}
