import Dispatch
import Synchronization
import Testing
@testable import ActorPromise

/// R3: a recursive promise loop runs in constant memory — the levels behind the one in flight go
/// while the loop runs — and nothing any rule lets a user see changes.
@Suite("R3 a recursive loop collapses its chain of adoptions")
struct CollapseTests {
    /// A step that settles on another thread: `done` once `index` reaches `last`; derived from
    /// the promise its resolver settles `derivations` times (a request's `map`, say).
    static func step(_ index: Int, last: Int, derivations: Int) -> Promise<Bool> {
        let (promise, resolver) = Promise<Bool>.pending()
        DispatchQueue.global().async { resolver.fulfill(index == last) }
        var step = promise
        for _ in 0..<derivations { step = step.map { $0 } }
        return step
    }

    @Test("R3 the levels behind the one in flight are freed while a 20,000-iteration loop runs", arguments: [0, 1, 3])
    func levelsFreedWhileRunning(derivations: Int) async throws {
        try await AsyncMutex.collapsing.withLock { try await Self.levelsFreedWhileRunning(derivations: derivations) }
    }

    static func levelsFreedWhileRunning(derivations: Int) async throws {
        let last = 20_000
        let watched = Locked<[WeakReference]>([])
        let aliveNearTheEnd = Locked(-1)
        @Sendable func poll(_ index: Int) -> Promise<Int> {
            if index == last - 1 {
                aliveNearTheEnd.withLock { $0 = watched.current.filter { $0.object != nil }.count }
            }
            let level = step(index, last: last, derivations: derivations).then { done in done ? Promise(value: index) : poll(index + 1) }
            if index > 0, index % 1_000 == 0 { watched.withLock { $0.append(WeakReference(level.core)) } }
            return level
        }
        #expect(try await poll(0).value == last)
        #expect(watched.current.count == 20)
        // The 19 levels watched by then are at least 999 iterations behind: all gone.
        #expect(aliveNearTheEnd.current == 0, "\(aliveNearTheEnd.current) of 19 levels alive near the end")
    }

    @Test("R5 R7 cancelling a loop that has run 100,000 iterations, from a 512 KiB thread: nothing behind the step in flight is left to walk, its onCancel runs, the loop's awaiters hear it")
    func cancelLongLoop() async throws {
        try await AsyncMutex.collapsing.withLock { try await Self.cancelLongLoop() }
    }

    static func cancelLongLoop() async throws {
        let last = 100_000
        let (reachedLast, reached) = Promise<Void>.pending()
        let (cancelledStep, stepCancelled) = Promise<Void>.pending()
        let inFlight = Locked<Resolver<Bool>?>(nil)
        let watched = Locked<[WeakReference]>([])
        let outer = DeepCancelTests.loop(
            0, depth: last, reached: reached, stepCancelled: stepCancelled, inFlight: inFlight
        ) { index, level in
            if index > 0, index % 10_000 == 0 { watched.withLock { $0.append(WeakReference(level.core)) } }
        }
        let awaiters = (0..<3).map { _ in Task { await outer.outcome } }
        try await reachedLast.value
        // The loop's state is the outermost promise and the level in flight: the 9 levels
        // watched behind it (10,000 to 90,000, watched before the last step was made) are gone,
        // so a cancel has nothing to walk.
        let alive = watched.current.prefix(9).filter { $0.object != nil }.count
        #expect(watched.current.count >= 9)
        #expect(alive == 0, "\(alive) of 9 levels behind the step in flight are alive")
        await onThread(stackSize: 512 * 1024) { outer.cancel() }
        try await cancelledStep.guardedAgainstHang().value
        for awaiter in awaiters {
            guard case .failure(let error) = await awaiter.value else {
                Issue.record("an awaiter of the loop got a value")
                continue
            }
            #expect(error.isCancellation)
        }
        inFlight.withLock { $0 = nil }
    }
}
