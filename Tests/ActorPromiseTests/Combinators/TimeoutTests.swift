import Testing
import ActorPromise

@Suite("timeout, delay, validate")
struct TimeoutTests {
    @Test("timeout rejects with timedOut when time runs out, and the source branch loses interest")
    func timesOut() async throws {
        let time = ManualScheduler()
        let stopped = Locked(false)
        let (source, resolver) = Promise<Int>.pending(tracksInterest: true)
        resolver.onCancel { stopped.withLock { $0 = true } }
        let limited = source.timeout(after: .seconds(5), scheduler: time)
        time.advance(by: .seconds(4))
        #expect(limited.isPending)
        time.advance(by: .seconds(1))
        await #expect { try await limited.value } throws: { ($0 as? PromiseError)?.code == .timedOut }
        #expect(stopped.current, "the source's only interested branch timed out, so its work was cancelled")
    }

    @Test("a promise that settles in time is passed through and the timer is cancelled")
    func inTime() async throws {
        let time = ManualScheduler()
        let (source, resolver) = Promise<Int>.pending()
        let limited = source.timeout(after: .seconds(5), scheduler: time)
        resolver.fulfill(3)
        #expect(try await limited.value == 3)
        #expect(time.pendingCount == 0)
        time.advance(by: .seconds(10))
        #expect(try await limited.value == 3)
    }

    @Test("delay holds the value until the time has passed; cancelling cancels the timer")
    func delay() async throws {
        let time = ManualScheduler()
        // The source is settled, so the timer is scheduled inside `delay` (inline handler).
        let delayed = Promise(value: 1).delay(.seconds(2), scheduler: time)
        #expect(time.pendingCount == 1)
        #expect(delayed.isPending)
        time.advance(by: .seconds(2))
        #expect(try await delayed.value == 1)
        let cancelled = Promise(value: 1).delay(.seconds(2), scheduler: time)
        #expect(time.pendingCount == 1)
        cancelled.cancel()
        #expect(time.pendingCount == 0)
        await #expect { try await cancelled.value } throws: { $0.isCancellation }
    }

    @Test("validate passes good values and rejects bad ones")
    func validate() async throws {
        #expect(try await Promise(value: 4).validate { $0 % 2 == 0 }.value == 4)
        await #expect(throws: ValidationError()) { try await Promise(value: 3).validate { $0 % 2 == 0 }.value }
        await #expect(throws: TestError(id: 9)) {
            try await Promise(value: 3).validate({ $0 > 5 }, else: { TestError(id: 9) }).value
        }
    }

    @Test("a manual clock advanced again from inside one of its actions never moves back")
    func nestedAdvance() {
        let time = ManualScheduler()
        let later = Locked(false)
        _ = time.schedule(after: .seconds(1)) { time.advance(by: .seconds(5)) }
        _ = time.schedule(after: .seconds(6)) { later.withLock { $0 = true } }
        time.advance(by: .seconds(1))
        #expect(time.elapsed == .seconds(6))
        #expect(later.current)
        _ = time.schedule(after: .seconds(1)) { later.withLock { $0 = false } }
        time.advance(by: .seconds(1))
        #expect(!later.current, "scheduled from the time the clock shows")
    }

    @Test("the real clock fires too")
    func systemClock() async throws {
        let (never, _keep) = Promise<Int>.pending()
        await #expect { try await never.timeout(after: .milliseconds(10)).value } throws: { ($0 as? PromiseError)?.code == .timedOut }
        _ = _keep
    }
}

@Suite("PromiseKit conveniences")
struct ConvenienceTests {
    @Test("get passes the value on after looking at it; a rejection skips it")
    func get() async throws {
        let seen = Locked<[Int]>([])
        #expect(try await Promise(value: 4).get { seen.append($0) }.value == 4)
        let failed = Promise<Int>(error: TestError(id: 2)).get { seen.append($0) }
        await #expect(throws: TestError(id: 2)) { try await failed.value }
        #expect(seen.current == [4])
    }

    @Test("after(_:) fulfils once the time has passed, and not before")
    func after() async throws {
        let time = ManualScheduler()
        let later = Promise.after(.seconds(5), scheduler: time)
        _ = try await Promise(value: 0).then(on: .inline) { $0 }.value
        time.advance(by: .seconds(4))
        #expect(later.isPending)
        time.advance(by: .seconds(1))
        try await later.value
    }
}
