import Testing
import Dispatch
import Synchronization
import ActorPromise
import ActorPromiseTesting

/// A callback SDK wrapped as the migration guide shows, tested with a fake that answers on the
/// runtime's clock and with a service that answers on a queue of its own: the production wrapper
/// is the same in both, and neither waits in real time for what virtual time delivers.
@Suite("PromiseTestRuntime: a wrapped SDK tested with a fake on the virtual clock")
struct VirtualTimeFakeTests {
    init() { QuietDiagnostics.install() }

    // MARK: The code under test, as an app writes it

    /// A request the SDK hands back, which the caller may cancel.
    protocol WeatherRequest: Sendable { func cancel() }

    /// The SDK's callback API.
    protocol WeatherService: Sendable {
        func fetch(city: String, completion: @escaping @Sendable (Result<Int, any Error>) -> Void) -> any WeatherRequest
    }

    /// The production wrapper: a promise per request, cancelled with its request; retried with
    /// back-off, each attempt timed out; a batch two cities at a time.
    struct WeatherFetcher: Sendable {
        let service: any WeatherService

        func temperature(in city: String) -> Promise<Int> {
            Promise { resolver in
                let request = service.fetch(city: city, completion: resolver.completion())
                resolver.onCancel { request.cancel() }
            }
        }

        func reliableTemperature(in city: String) -> Promise<Int> {
            Promise<Int>.retry(attempts: 4, delay: .exponential(initial: .seconds(5))) { _ in
                temperature(in: city).timeout(after: .seconds(10))
            }
        }

        func temperatures(_ cities: [String]) -> Promise<[Int]> {
            Promise<Int>.map(cities, maxConcurrency: 2) { reliableTemperature(in: $0) }
        }
    }

    // MARK: The fakes

    struct Unavailable: Error {}

    /// Answers after `latency` on whatever clock runs it: under a test runtime, the runtime's.
    /// A city in `failures` fails that many times before it answers.
    final class FakeWeatherService: WeatherService {
        let latency: Duration
        private let state: Mutex<(failuresLeft: [String: Int], fetched: [String], cancelled: Int)>

        init(latency: Duration, failures: [String: Int] = [:]) {
            self.latency = latency
            state = Mutex((failures, [], 0))
        }

        var fetched: [String] { state.withLock { $0.fetched } }
        var cancelled: Int { state.withLock { $0.cancelled } }

        struct Request: WeatherRequest {
            let cancelAnswer: @Sendable () -> Void
            func cancel() { cancelAnswer() }
        }

        func fetch(city: String, completion: @escaping @Sendable (Result<Int, any Error>) -> Void) -> any WeatherRequest {
            let fails = state.withLock { state -> Bool in
                state.fetched.append(city)
                guard let left = state.failuresLeft[city], left > 0 else { return false }
                state.failuresLeft[city] = left - 1
                return true
            }
            let result: Result<Int, any Error> = fails ? .failure(Unavailable()) : .success(city.count)
            let answer = Promise<Void>.after(latency).then { completion(result) }
            return Request { [self] in
                answer.cancel()
                self.state.withLock { $0.cancelled += 1 }
            }
        }
    }

    /// Answers after a few milliseconds of real time on a queue of its own, as an SDK does.
    struct QueueWeatherService: WeatherService {
        let queue = DispatchQueue(label: "weather-sdk")

        struct Request: WeatherRequest { func cancel() {} }

        func fetch(city: String, completion: @escaping @Sendable (Result<Int, any Error>) -> Void) -> any WeatherRequest {
            queue.asyncAfter(deadline: .now() + .milliseconds(5)) { completion(.success(city.count)) }
            return Request()
        }
    }

    static let cities = ["Oslo", "Lima", "Rome", "Pune", "Quito"]

    // MARK: Tests

    @Test("a fake on the virtual clock: retries with back-off, timeouts and a bounded batch run in virtual time")
    func fakeOnTheVirtualClock() throws {
        // Oslo fails twice: attempts at 0 s, 3 + 5 = 8 s and 11 + 10 = 21 s, the last answering at 24 s.
        let service = FakeWeatherService(latency: .seconds(3), failures: ["Oslo": 2])
        let runtime = PromiseTestRuntime(autoAdvance: true)
        let values = try runtime.run { WeatherFetcher(service: service).temperatures(Self.cities) }
        #expect(values == [4, 4, 4, 4, 5])
        #expect(runtime.now == .seconds(24))
        #expect(service.fetched.filter { $0 == "Oslo" }.count == 3)
        #expect(service.cancelled == 0)
    }

    @Test("a fake slower than the timeout: every attempt times out and its request is cancelled")
    func fakeSlowerThanTheTimeout() {
        let service = FakeWeatherService(latency: .seconds(15))
        let runtime = PromiseTestRuntime(autoAdvance: true)
        #expect {
            try runtime.run { WeatherFetcher(service: service).reliableTemperature(in: "Oslo") }
        } throws: { ($0 as? PromiseError)?.code == .timedOut }
        // Four attempts of 10 s, and back-off of 5, 10 and 20 s between them.
        #expect(runtime.now == .seconds(75))
        #expect(service.fetched.count == 4)
        #expect(service.cancelled == 4)
        #expect(runtime.pendingTimerCount == 0)
    }

    @Test("cancelling the batch cancels the requests in flight and starts no other")
    func cancellingTheBatch() {
        let service = FakeWeatherService(latency: .seconds(3))
        let runtime = PromiseTestRuntime(autoAdvance: false)
        let batch: Promise<[Int]> = runtime.run { WeatherFetcher(service: service).temperatures(Self.cities) }
        runtime.advance(by: .seconds(1))
        #expect(service.fetched == ["Oslo", "Lima"])
        batch.cancel()
        runtime.advance(by: .seconds(60))
        #expect(service.fetched == ["Oslo", "Lima"])
        #expect(service.cancelled == 2)
        #expect(runtime.pendingTimerCount == 0)
        #expect(batch.isCancelled)
    }

    @Test("cancelling the task that awaits the batch cancels the requests in flight")
    func cancellingTheAwaitingTask() async throws {
        let service = FakeWeatherService(latency: .seconds(3))
        let runtime = PromiseTestRuntime(autoAdvance: true)
        let outcome = try await runtime.run { () async throws -> String in
            try await withThrowingTaskGroup(of: [Int].self) { group in
                group.addTask { try await WeatherFetcher(service: service).temperatures(Self.cities).value }
                // One virtual second: the first two requests are out, none has answered.
                try await Promise<Void>.after(.seconds(1)).value
                group.cancelAll()
                do {
                    _ = try await group.next()
                    return "finished"
                } catch {
                    return error.isCancellation ? "cancelled" : "\(error)"
                }
            }
        }
        #expect(outcome == "cancelled")
        #expect(service.fetched == ["Oslo", "Lima"])
        #expect(service.cancelled == 2)
        #expect(runtime.pendingTimerCount == 0)
    }

    @Test("explore: the fake on the virtual clock delivers under every seed")
    func exploreWithTheFake() throws {
        let failure = try PromiseTestRuntime.explore(seeds: 1...20, autoAdvance: true) { runtime in
            let service = FakeWeatherService(latency: .seconds(3), failures: ["Oslo": 2])
            let values = try runtime.run { WeatherFetcher(service: service).temperatures(Self.cities) }
            try #require(values == [4, 4, 4, 4, 5])
            try #require(runtime.now == .seconds(24))
        }
        #expect(failure == nil, "\(failure!)")
    }

    @Test("the same wrapper over a service on its own queue: the clock waits for each callback")
    func serviceOnItsOwnQueue() throws {
        let runtime = PromiseTestRuntime(autoAdvance: true)
        let values = try runtime.run { WeatherFetcher(service: QueueWeatherService()).temperatures(Self.cities) }
        #expect(values == [4, 4, 4, 4, 5])
        #expect(runtime.now == .zero)
    }

    // MARK: Where the rule cannot tell, and the option that says otherwise

    /// A handler made outside any promise body, answered by a timer of the runtime.
    static func answeredByATimer() -> Promise<Int> {
        let (promise, resolver) = Promise<Int>.pending()
        let completion = resolver.completion()
        Promise<Void>.after(.seconds(2)).whenComplete { _ in completion(.success(7)) }
        return promise.timeout(after: .seconds(30))
    }

    @Test("a handler made outside a body is taken for work on another thread: the stuck run says so and names the option")
    func handlerOutsideABodyExplained() {
        let runtime = PromiseTestRuntime(autoAdvance: true, outsideWorkTimeout: .milliseconds(50))
        #expect {
            try runtime.run { Self.answeredByATimer() }
        } throws: { error in
            let reason = (error as? StuckRun)?.reason ?? ""
            return reason.contains("started no job or timer of the runtime") && reason.contains("callbacks: .onTheVirtualClock")
        }
    }

    @Test("callbacks: .onTheVirtualClock: the same handler does not hold the clock")
    func handlerOutsideABodyOnTheVirtualClock() throws {
        let runtime = PromiseTestRuntime(autoAdvance: true, callbacks: .onTheVirtualClock)
        let value = try runtime.run { Self.answeredByATimer() }
        #expect(value == 7)
        #expect(runtime.now == .seconds(2))
    }

    @Test("explore with callbacks: .onTheVirtualClock: the handler made outside a body delivers under every seed")
    func exploreOnTheVirtualClock() throws {
        let failure = try PromiseTestRuntime.explore(seeds: 1...20, autoAdvance: true, callbacks: .onTheVirtualClock) { runtime in
            let value = try runtime.run { Self.answeredByATimer() }
            try #require(value == 7)
        }
        #expect(failure == nil, "\(failure!)")
    }

    /// A body that starts a timer of the runtime's and hands its handler to a queue that answers
    /// once `gate` is signalled.
    static func timerAndQueue(_ queue: DispatchQueue, _ gate: DispatchSemaphore) -> Promise<Int> {
        Promise<Int> { resolver in
            let completion = resolver.completion()
            _ = Promise<Void>.after(.seconds(1))
            queue.async {
                gate.wait()
                completion(.success(7))
            }
        }.timeout(after: .seconds(30))
    }

    @Test("a handler taken for the runtime's work but called from another thread after the clock jumped fails the test, naming the option")
    func presumedHandlerCalledFromOutside() {
        let runtime = PromiseTestRuntime(autoAdvance: true)
        let queue = DispatchQueue(label: "late-sdk")
        let gate = DispatchSemaphore(value: 0)
        #expect {
            try runtime.run { Self.timerAndQueue(queue, gate) }
        } throws: { ($0 as? PromiseError)?.code == .timedOut }
        gate.signal()
        queue.sync {}
        withKnownIssue {
            runtime.runUntilIdle()
        } matching: { issue in
            issue.comments.contains { comment in
                // Debug builds record where the promise was made; release builds say it was not.
                #if DEBUG
                let site = "VirtualTimeFakeTests.swift:"
                #else
                let site = "an unrecorded site"
                #endif
                return comment.rawValue.contains("callbacks: .fromOtherThreads") && comment.rawValue.contains(site)
            }
        }
    }

    @Test("callbacks: .fromOtherThreads: the clock waits for that handler")
    func fromOtherThreadsWaits() throws {
        let runtime = PromiseTestRuntime(autoAdvance: true, callbacks: .fromOtherThreads)
        let queue = DispatchQueue(label: "sdk")
        let gate = DispatchSemaphore(value: 0)
        gate.signal()
        let value = try runtime.run { Self.timerAndQueue(queue, gate) }
        #expect(value == 7)
        // The 30-second timeout never fired; the body's one-second timer did, once idle.
        #expect(runtime.now == .seconds(1))
    }
}
