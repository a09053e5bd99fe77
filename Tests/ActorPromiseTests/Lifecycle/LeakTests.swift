import Testing
import ActorPromise

/// An object whose release settles a promise, so a test can wait for the release itself.
final class Tracked: Sendable {
    private let released: Resolver<Void>
    init(_ released: Resolver<Void>) { self.released = released }
    deinit { released.fulfill() }
}

/// A fresh `Tracked` and a promise for its release.
func tracked() -> (Tracked, Promise<Void>) {
    let (promise, resolver) = Promise<Void>.pending()
    return (Tracked(resolver), promise)
}

/// Runs `body` with a fresh tracked object that nothing else holds, then waits for its release.
func expectRelease(_ body: (Tracked) async throws -> Void) async throws {
    var released: Promise<Void>
    do {
        let (object, gone) = tracked()
        released = gone
        try await body(object)
    }
    try await released.released()
}

extension Promise where Value == Void {
    /// Waits for a release; fails with `timedOut` instead of hanging if the object leaked.
    func released() async throws {
        try await guardedAgainstHang().value
    }
}

final class PromiseHolder: @unchecked Sendable {
    // Safety: written once before the handler that reads it can run (inside a lock in the test).
    let lock = Locked<Promise<Int>?>(nil)
}

@Suite("Reliability: no leaks")
struct LeakTests {
    /// The abandonments these tests provoke are recorded, not printed as warnings.
    init() { AbandonmentLog.install() }

    @Test("objects captured by handlers are released after settlement")
    func afterSettlement() async throws {
        var released: Promise<Void>
        do {
            let (object, gone) = tracked()
            released = gone
            let (root, resolver) = Promise<Int>.pending()
            let tail = root.then { [object] value in _ = object; return value + 1 }.then(on: .inline) { $0 * 2 }
            resolver.fulfill(1)
            #expect(try await tail.value == 4)
        }
        try await released.released()
    }

    @Test("objects captured by handlers of a cancelled branch are released without the handler running")
    func afterCancellation() async throws {
        var released: Promise<Void>
        do {
            let (object, gone) = tracked()
            released = gone
            let (root, resolver) = Promise<Int>.pending()
            let branch = root.then { [object] value in _ = object; return value }
            branch.cancel()
            resolver.fulfill(1)
            _ = await branch.outcome
        }
        try await released.released()
    }

    @Test("a handler that captures its own promise does not keep it alive after settlement")
    func selfCapturingCycle() async throws {
        var released: Promise<Void>
        do {
            let (object, gone) = tracked()
            released = gone
            let holder = PromiseHolder()
            let (root, resolver) = Promise<Int>.pending()
            let child = root.then { [holder, object] value -> Int in
                _ = object
                return holder.lock.current == nil ? -1 : value
            }
            holder.lock.withLock { $0 = child }
            resolver.fulfill(3)
            #expect(try await child.value == 3)
        }
        try await released.released()
    }

    @Test("a pending chain whose resolver is dropped releases everything (abandonment)")
    func abandonedChain() async throws {
        var released: Promise<Void>
        var tail: Promise<Int>
        do {
            let (object, gone) = tracked()
            released = gone
            let (root, resolver) = Promise<Int>.pending()
            tail = root.then { [object] value in _ = object; return value }
            _ = resolver
        }
        _ = await tail.outcome
        try await released.released()
    }

    @Test("resolvers of timers and retries are released when their promise is cancelled")
    func cancelledTimers() async throws {
        var released: Promise<Void>
        do {
            let (object, gone) = tracked()
            released = gone
            let time = ManualScheduler()
            let retried = Retryable<Int> { [object] _ in _ = object; return Promise(error: TestError()) }
                .retry(attempts: 10, delay: .fixed(.seconds(1)), scheduler: time)
                .run()
            retried.cancel()
            time.advance(by: .seconds(100))
            _ = await retried.outcome
        }
        try await released.released()
    }
}
