/// When a worker that ran out of work searches before it parks: always while its searches find
/// work; after a search that found none it skips the next one, after two in a row the next two,
/// then four, up to 64, so a worker whose waits are longer than a search spends almost nothing on
/// searching, and a single unlucky search costs little.
package struct SearchBackOff: Sendable {
    /// Searches to skip before the next one.
    package private(set) var skips = 0
    /// Searches skipped after the last search that found nothing.
    package private(set) var penalty = 0
    /// The most searches skipped in a row.
    package static let maximumPenalty = 64

    package init() {}

    /// Whether to search now (uses up a skip when not).
    package mutating func mayStartSearching() -> Bool {
        guard skips > 0 else { return true }
        skips -= 1
        return false
    }

    /// The search found work.
    package mutating func found() { penalty = 0 }

    /// The search found nothing and the worker parks.
    package mutating func gaveUp() {
        penalty = min(Self.maximumPenalty, max(1, 2 * penalty))
        skips = penalty
    }
}
