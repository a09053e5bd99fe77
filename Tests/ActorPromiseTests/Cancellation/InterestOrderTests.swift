import Testing
import ActorPromise

/// The order between levels of a chain when a cancel releases their `.main` handlers: down from the
/// top for `cancel()`, up from the leaf for a loss of interest (Semantics, *Interest*).
@Suite("R2 R7 order of a chain's main-context handlers when it is cancelled")
@MainActor
struct InterestOrderTests {
    @MainActor final class Log { var lines: [String] = [] }

    /// Cancels `root.catch(on: .main){…}.ensure(on: .main){…}` as `cancel` says; returns the order
    /// its handlers ran in.
    func order(_ cancel: (Promise<Int>, Promise<Void>) async -> Void) async throws -> [String] {
        let log = Log()
        let (root, resolver) = Promise<Int>.pending()
        let leaf = root.catch(on: .main) { _ in log.lines.append("catch") }.ensure(on: .main) { log.lines.append("ensure") }
        await cancel(root, leaf)
        // Main-context jobs run in submission order: this one runs after both handlers.
        try await Promise<Void>().then(on: .main) {}.value
        _ = resolver
        return log.lines
    }

    @Test("root.cancel() travels down: the top handler runs first")
    func cancelRunsTopFirst() async throws {
        #expect(try await order { root, _ in root.cancel() } == ["catch", "ensure"])
    }

    @Test("a cancelled awaiting task's loss of interest travels up: the leaf's handler runs first")
    func lostInterestRunsLeafFirst() async throws {
        let lines = try await order { _, leaf in
            let waiting = Task { try await leaf.value }
            waiting.cancel()
            _ = await waiting.result
        }
        #expect(lines == ["ensure", "catch"])
    }
}

/// A follower that one `cancel()` reaches twice — its source is cancelled, and so is its last
/// dependent — settles with its source's cancellation; its `onCancel` does not run (Semantics,
/// *Interest*). The same whichever of the two branches was made first.
@Suite("R6 R7 a follower that one cancel reaches twice")
struct FollowerReachedTwiceTests {
    @Test("its source's cancellation arrives first: settled with it, onCancel not run", arguments: [false, true])
    func sourceFirst(dependentFirst: Bool) async throws {
        let step = Promise(value: 3)
        let (inner, innerResolver) = Promise<Int>.pending(tracksInterest: false)
        let (follower, followerResolver) = Promise<Int>.pending()
        let stopped = Locked(0)
        followerResolver.onCancel { _ = stopped.increment() }
        // `source` follows `inner`; `dependent` follows `follower`, which follows `source`.
        var source: Promise<Int>?, dependent: Promise<Int>?
        if dependentFirst { dependent = step.flatMap(on: .inline) { _ in follower } }
        source = step.flatMap(on: .inline) { _ in inner }
        if !dependentFirst { dependent = step.flatMap(on: .inline) { _ in follower } }
        followerResolver.resolve(with: source!)

        step.cancel()

        #expect(dependent!.isCancelled && source!.isCancelled && follower.isCancelled)
        #expect(stopped.current == 0, "the follower's onCancel ran")
        #expect(inner.isPending, "a promise that does not track interest is never cancelled by its loss")
        innerResolver.fulfill(0)
    }
}
