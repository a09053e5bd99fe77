import Testing
import Dispatch
import Synchronization
import ActorPromise
import ActorPromiseTesting

/// What a test author sees when the clock, timers due together, or a callback from another
/// thread decide the outcome: no run passes or fails for a reason it does not say.
@Suite("PromiseTestRuntime: the clock, timers due together, callbacks from outside")
struct ClockAndOutsideWorkTests {
    init() { QuietDiagnostics.install() }

    /// A counter whose update takes two jobs — a read, then a write — as a cache refresh does.
    final class Counter: Sendable {
        let value = Mutex(0)

        func increment(after delay: Duration) -> Promise<Void> {
            Promise<Void>.after(delay)
                .then { self.value.withLock { $0 } }                      // read
                .then { read in self.value.withLock { $0 = read + 1 } }   // write
        }
    }

    struct LostUpdate: Error {}

    @Test("explore refuses a scenario that is stuck only because the clock never moves, and says which option moves it")
    func exploreRefusesAFrozenClock() {
        #expect {
            _ = try PromiseTestRuntime.explore(seeds: 0..<20) { runtime in
                let counter = Counter()
                try runtime.run { Promise.all([counter.increment(after: .seconds(1)), counter.increment(after: .seconds(1))]) }
            }
        } throws: { error in
            guard let stuck = error as? StuckRun else { return false }
            return stuck.reason.contains("autoAdvance: true") && stuck.reason.contains("2 timers wait")
        }
    }

    @Test("run with timers pending and no autoAdvance says that the clock does not move by itself")
    func runStuckOnTheClock() {
        let runtime = PromiseTestRuntime()
        do {
            try runtime.run { Promise<Void>.after(.seconds(5)) }
            Issue.record("a promise only a timer settles was settled with a frozen clock")
        } catch let stuck as StuckRun {
            #expect(stuck.reason.contains("a timer waits"))
            #expect("\(stuck)".contains("autoAdvance: true"))
        } catch {
            Issue.record("threw \(error)")
        }
        // The same run with the clock moved by hand settles.
        runtime.advance(by: .seconds(5))
        #expect(runtime.pendingTimerCount == 0)
    }

    @Test("the work of two timers due at the same instant interleaves: a lost update is found within 20 seeds")
    func timersDueTogetherInterleave() throws {
        func scenario(_ runtime: PromiseTestRuntime) throws {
            let counter = Counter()
            try runtime.run { Promise.all([counter.increment(after: .seconds(1)), counter.increment(after: .seconds(1))]) }
            if counter.value.withLock({ $0 }) != 2 { throw LostUpdate() }
        }
        let failure = try #require(try PromiseTestRuntime.explore(seeds: 0..<20, autoAdvance: true, scenario))
        #expect(failure.error is LostUpdate)
        #expect(throws: LostUpdate.self) { try scenario(PromiseTestRuntime(seed: failure.seed, autoAdvance: true)) }
        // Some orders keep both updates.
        #expect((0..<20).contains { (try? scenario(PromiseTestRuntime(seed: UInt64($0), autoAdvance: true))) != nil })
    }

    @Test("a failed #require inside explore is the seed's failure, in its own words, and records no issue of its own")
    func readableFailure() throws {
        let failure = try #require(try PromiseTestRuntime.explore(seeds: 0..<20, autoAdvance: true) { runtime in
            let counter = Counter()
            try runtime.run { Promise.all([counter.increment(after: .seconds(1)), counter.increment(after: .seconds(1))]) }
            let total = counter.value.withLock { $0 }
            try #require(total == 2)
        })
        let text = "\(failure)"
        #expect(failure.messages.count == 1)
        #expect(failure.messages[0].contains("total"), "\(failure.messages)")
        #expect(!text.contains("ExpectationFailedError"))
        #expect(text.contains("replay with PromiseTestRuntime(seed: \(failure.seed))"))
        #if DEBUG
        // Each job is named by its context and the promise it belongs to.
        #expect(failure.order.contains { $0.hasPrefix("pool: handler of the promise made at ") && $0.contains("ClockAndOutsideWorkTests.swift:") }, "\(failure.order)")
        #endif
    }

    /// A service that answers on a queue of its own, after some real time, as an SDK does.
    struct SlowService: Sendable {
        let queue = DispatchQueue(label: "slow-service")
        let answers: Bool

        func fetch(_ completion: @escaping @Sendable (Result<Int, any Error>) -> Void) {
            guard answers else { return }
            queue.asyncAfter(deadline: .now() + .milliseconds(30)) { completion(.success(7)) }
        }

        func load() -> Promise<Int> {
            Promise { resolver in fetch(resolver.completion()) }
        }
    }

    @Test("with autoAdvance, a callback from another thread wins against a 30-second timeout: the clock waits for it")
    func outsideCallbackBeatsVirtualTimeout() throws {
        let runtime = PromiseTestRuntime(autoAdvance: true)
        let value = try runtime.run { SlowService(answers: true).load().timeout(after: .seconds(30)) }
        #expect(value == 7)
        #expect(runtime.now == .zero)
    }

    @Test("the async form waits for the callback too")
    func outsideCallbackAsync() async throws {
        let runtime = PromiseTestRuntime(autoAdvance: true)
        let value = try await runtime.run { try await SlowService(answers: true).load().timeout(after: .seconds(30)).value }
        #expect(value == 7)
        #expect(runtime.now == .zero)
    }

    @Test("a callback that never comes fails the run after outsideWorkTimeout, naming the promise and the option")
    func outsideCallbackNeverComes() {
        let runtime = PromiseTestRuntime(autoAdvance: true, outsideWorkTimeout: .milliseconds(50))
        let service = SlowService(answers: false)
        // The service keeps the completion handler and never calls it.
        let kept = Mutex<(@Sendable (Result<Int, any Error>) -> Void)?>(nil)
        do {
            _ = try runtime.run {
                // Made at a line number of its own, so that the message can be checked for it.
                Promise<Int>(line: 9_001) { resolver in kept.withLock { $0 = resolver.completion() } }.timeout(after: .seconds(30))
            }
            Issue.record("a callback that never came did not fail the run")
        } catch let stuck as StuckRun {
            #expect(stuck.reason.contains("outsideWorkTimeout"))
            #if DEBUG
            #expect(stuck.reason.contains("the completion handler of the promise made at ") && stuck.reason.contains("ClockAndOutsideWorkTests.swift:9001"), "\(stuck.reason)")
            #endif
        } catch {
            Issue.record("threw \(error)")
        }
        _ = service
        kept.withLock { $0 = nil }
    }

    /// An SDK wrapped the way most code wraps one: the resolver itself captured by the callback.
    struct RawCallbackService: Sendable {
        let queue = DispatchQueue(label: "raw-callback-service")

        func load() -> Promise<Int> {
            Promise { resolver in
                queue.asyncAfter(deadline: .now() + .milliseconds(30)) { resolver.fulfill(7) }
            }
        }
    }

    @Test("a body that hands its resolver itself to another thread holds the clock too: the callback wins against the timeout")
    func rawResolverBeatsVirtualTimeout() throws {
        let runtime = PromiseTestRuntime(autoAdvance: true)
        let value = try runtime.run { RawCallbackService().load().timeout(after: .seconds(30)) }
        #expect(value == 7)
        #expect(runtime.now == .zero)
    }

    @Test("a resolver handed to another thread outside any body: the stuck run names the promise and what lets the runtime wait")
    func rawPendingResolverExplained() {
        let runtime = PromiseTestRuntime(autoAdvance: true)
        let queue = DispatchQueue(label: "raw-pending")
        // The other thread holds the resolver until the run has answered, so the promise is still
        // pending when the runtime describes it, however slow the machine.
        let answered = DispatchSemaphore(value: 0)
        defer { answered.signal() }
        do {
            _ = try runtime.run { () -> Promise<Int> in
                let (promise, resolver) = Promise<Int>.pending()
                queue.async { answered.wait(); resolver.fulfill(7) }
                return promise
            }
            Issue.record("the runtime waited for work it cannot see")
        } catch let stuck as StuckRun {
            // Debug builds record what each promise waits for; the hint comes with it.
            #if DEBUG
            #expect(stuck.reason.contains("resolver.completion()"), "\(stuck.reason)")
            #expect(stuck.reason.contains("Promise { resolver in"))
            #endif
            _ = stuck
        } catch {
            Issue.record("threw \(error)")
        }
    }

    @Test("a completion handler released without being called lets the clock move on")
    func outsideCallbackReleased() throws {
        let runtime = PromiseTestRuntime(autoAdvance: true)
        #expect(throws: PromiseError.self) {
            // The handler is dropped: the promise is abandoned, and nothing waits for it.
            try runtime.run { Promise<Int> { resolver in _ = resolver.completion() }.timeout(after: .seconds(30)) }
        }
    }

    @Test("the wait for outside work counts its real time, and at most a second of a pause of the whole process")
    func waitIgnoresPauses() {
        final class FakeClock { var now = 1_000.0 }
        let clock = FakeClock()
        var waited = WaitedTime(clock: { clock.now })
        clock.now += 0.5
        #expect(waited.look() == 0.5)
        clock.now += 0.25
        #expect(waited.look() == 0.75)
        clock.now += 600   // the process was stopped for ten minutes between two looks
        #expect(waited.look() == 1.75)
        clock.now += 0.5
        #expect(waited.look() == 2.25)
        #expect(waited.look() == 2.25, "no time passed")
    }
}
