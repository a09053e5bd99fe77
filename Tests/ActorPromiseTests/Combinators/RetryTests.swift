import Testing
import ActorPromise

@Suite("R11 retry")
struct RetryTests {
    /// Work that fails `failures` times, then succeeds with the attempt count.
    static func flaky(failures: Int, calls: Locked<Int>) -> Retryable<Int> {
        Retryable { _ in
            let call = calls.increment()
            return call <= failures ? Promise(error: TestError(id: call)) : Promise(value: call)
        }
    }

    @Test("R11 retry(attempts:) re-runs the work until it succeeds")
    func retriesUntilSuccess() async throws {
        let calls = Locked(0)
        let value = try await Self.flaky(failures: 2, calls: calls).retry(attempts: 3).run().value
        #expect(value == 3)
        #expect(calls.current == 3)
    }

    @Test("R11 after the last attempt the last error is reported")
    func givesUp() async throws {
        let calls = Locked(0)
        await #expect(throws: TestError(id: 3)) {
            try await Self.flaky(failures: 10, calls: calls).retry(attempts: 3).run().value
        }
        #expect(calls.current == 3)
    }

    @Test("R11 a fixed delay waits between attempts, on the test clock")
    func fixedDelay() async throws {
        let time = ManualScheduler()
        let calls = Locked(0)
        let retried = Self.flaky(failures: 1, calls: calls).retry(attempts: 2, delay: .fixed(.seconds(3)), scheduler: time).run()
        #expect(calls.current == 1)
        time.advance(by: .seconds(2))
        #expect(calls.current == 1)
        time.advance(by: .seconds(1))
        #expect(try await retried.value == 2)
    }

    @Test("R11 exponential backoff grows, is capped, and jitter only shortens")
    func backoff() {
        let policy = RetryDelay.exponential(initial: .seconds(1), multiplier: 2, maximum: .seconds(5))
        #expect(policy.duration(afterAttempt: 1) == .seconds(1))
        #expect(policy.duration(afterAttempt: 2) == .seconds(2))
        #expect(policy.duration(afterAttempt: 3) == .seconds(4))
        #expect(policy.duration(afterAttempt: 4) == .seconds(5))
        let jittered = RetryDelay.exponential(initial: .seconds(4), jitter: 0.5)
        for _ in 0..<100 {
            let wait = jittered.duration(afterAttempt: 1)
            #expect(wait >= .seconds(2) && wait <= .seconds(4))
        }
    }

    @Test("R11 a decision closure says retry now, retry later, or stop")
    func decisionClosure() async throws {
        let time = ManualScheduler()
        let calls = Locked(0)
        let decisions = Locked<[Int]>([])
        let retried = Self.flaky(failures: 3, calls: calls).retry(scheduler: time) { attempt, error in
            decisions.append(attempt)
            switch attempt {
            case 1: return .retry
            case 2: return .retryAfter(.seconds(1))
            default: return .stop
            }
        }.run()
        #expect(calls.current == 2)
        time.advance(by: .seconds(1))
        await #expect(throws: TestError(id: 3)) { try await retried.value }
        #expect(decisions.current == [1, 2, 3])
    }

    @Test("R11 reuse keeps a good value for later runs; retries cascade without it")
    func reuse() async throws {
        let calls = Locked(0)
        let work = Self.flaky(failures: 0, calls: calls).reuse()
        #expect(try await work.run().value == 1)
        #expect(try await work.run().value == 1)
        #expect(calls.current == 1)

        let cascading = Locked(0)
        await #expect(throws: (any Error).self) {
            try await Self.flaky(failures: 100, calls: cascading).retry(attempts: 3).retry(attempts: 2).run().value
        }
        #expect(cascading.current == 6)
    }

    @Test("R11 cancelling the retried promise stops future attempts and cancels the running one")
    func cancellation() async throws {
        let time = ManualScheduler()
        let calls = Locked(0)
        let (running, _keep) = Promise<Int>.pending()
        let retried = Retryable<Int> { attempt in
            calls.increment()
            return attempt == 1 ? Promise(error: TestError()) : running
        }.retry(attempts: 5, delay: .fixed(.seconds(1)), scheduler: time).run()
        time.advance(by: .seconds(1))
        #expect(calls.current == 2)
        retried.cancel()
        #expect(running.isCancelled)
        time.advance(by: .seconds(10))
        #expect(calls.current == 2)
        await #expect { try await retried.value } throws: { $0.isCancellation }
        _ = _keep
    }

    @Test("Promise.retry is the frozen single-value form")
    func staticRetry() async throws {
        let calls = Locked(0)
        let value = try await Promise<Int>.retry(attempts: 4) { _ in
            let call = calls.increment()
            return call < 3 ? Promise(error: TestError()) : Promise(value: call)
        }.value
        #expect(value == 3)
    }
}
