import Testing
import Dispatch
@testable import ActorPromise

/// An error these tests can tell apart from every other test's.
struct DiagnosedError: Error, Equatable {
    let id: Int
}

/// Records the unhandled-rejection reports of the whole test process. The handler is
/// process-wide and suites run in parallel, so it is installed once and never removed (a suite that
/// removed it at its end would silence another's); suites tell their reports apart by error or site.
enum ReportLog {
    static let reports = Locked<[UnhandledRejection]>([])

    private static let installed: Void = {
        PromiseDiagnostics.unhandledRejectionHandler = { report in reports.withLock { $0.append(report) } }
    }()

    /// Installs the recording handler, if it is not installed yet.
    static func install() { installed }

    /// Runs `body` with the recording handler installed.
    static func recording(_ body: () async throws -> Void) async throws {
        install()
        try await body()
    }

    /// How many reports have arrived so far.
    static var count: Int { reports.withLock { $0.count } }

    /// Forgets the reports that `isIncluded` picks.
    static func remove(where isIncluded: (UnhandledRejection) -> Bool) {
        reports.withLock { $0.removeAll(where: isIncluded) }
    }

    /// The reports that arrived after the first `start`.
    static func since(_ start: Int) -> [UnhandledRejection] { reports.withLock { Array($0[start...]) } }

    static func reports(for id: Int) -> [UnhandledRejection] {
        reports.current.filter { ($0.error as? DiagnosedError)?.id == id }
    }

    /// Waits (polling: a release has no event to wait for) until `count` reports of error `id`
    /// arrived, or 60 s passed; returns them. The limit is generous because the handlers whose
    /// promises report run on the shared pool, which the ThreadSanitizer run's parallel stress
    /// tests can keep busy for tens of seconds (a CI rehearsal saw 10 s pass with none of 200
    /// reports in, and a one-report wait here take 32 s).
    static func wait(for id: Int, count: Int = 1) async -> [UnhandledRejection] {
        for _ in 0..<6_000 where reports(for: id).count < count {
            try? await Task.sleep(for: .milliseconds(10))
        }
        return reports(for: id)
    }
}

/// The site the library names for `line` of this file. Sites are recorded in debug builds only,
/// so release builds (CI runs the tests in both) name none.
private func site(_ line: Int) -> String {
    #if DEBUG
    "ActorPromiseTests/UnhandledRejectionTests.swift:\(line)"
    #else
    "an unrecorded site (sites are recorded in debug builds)"
    #endif
}

@Suite("R14 unhandled rejections are reported once, at release, with the site", .serialized)
struct UnhandledRejectionTests {
    // MARK: Reported

    @Test("R14 a rejected promise dropped with nobody observing it: once, naming its line")
    func droppedRejected() async throws {
        try await ReportLog.recording {
            let line = #line + 1
            do { _ = Promise<Int>(error: DiagnosedError(id: 1)) }
            let reports = await ReportLog.wait(for: 1)
            #expect(reports.count == 1)
            #expect(reports.first?.site == site(line))
        }
    }

    @Test("R14 a rejected chain with no catch: once, for the last link, not per link")
    func chainOnce() async throws {
        try await ReportLog.recording {
            let watched: [WeakReference]
            let line = #line + 3
            do {
                let (root, resolver) = Promise<Int>.pending()
                let last = root.then(on: .inline) { $0 + 1 }.map(on: .inline) { $0 * 2 }
                watched = [WeakReference(root.core), WeakReference(last.core)]
                resolver.reject(DiagnosedError(id: 2))
            }
            #expect(await waitUntilFreed(watched))
            let reports = await ReportLog.wait(for: 2)
            #expect(reports.count == 1)
            #expect(reports.first?.site == site(line))
        }
    }

    @Test("R14 a handler's error reaching an ensure with no catch: once, at the ensure")
    func thrownIntoEnsure() async throws {
        try await ReportLog.recording {
            let ran = Countdown(1)
            let line = #line + 3
            do {
                _ = Promise(value: 1).then { _ -> Int in throw DiagnosedError(id: 3) }
                    .ensure { ran.tick() }
            }
            try await ran.wait()
            let reports = await ReportLog.wait(for: 3)
            #expect(reports.count == 1)
            #expect(reports.first?.site == site(line))
        }
    }

    @Test("R14 an all whose rejected result nobody observes: once, at the all")
    func unobservedAll() async throws {
        try await ReportLog.recording {
            let line = #line + 1
            do { _ = Promise.all([Promise(error: DiagnosedError(id: 4)), Promise(value: 1)]) }
            let reports = await ReportLog.wait(for: 4)
            #expect(reports.count == 1)
            #expect(reports.first?.site == site(line))
        }
    }

    @Test("R14 reports from many threads at once: exactly one per dropped chain", arguments: [0, 1, 2])
    func concurrentReleases(round: Int) async throws {
        try await ReportLog.recording {
            let id = 100 + round
            await withTaskGroup(of: Void.self) { group in
                for _ in 0..<200 {
                    group.addTask {
                        let (root, resolver) = Promise<Int>.pending()
                        _ = root.then { $0 }.then(on: .inline) { $0 }
                        resolver.reject(DiagnosedError(id: id))
                    }
                }
            }
            let reports = await ReportLog.wait(for: id, count: 200)
            #expect(reports.count == 200)
        }
    }

    // MARK: Not reported

    /// Runs `scenario`, which returns the promises it made; waits until they are freed; expects
    /// no report of error `id`.
    func expectNoReport(_ id: Int, _ scenario: () async throws -> [AnyObject]) async throws {
        try await ReportLog.recording {
            let watched = try await scenario().map(WeakReference.init)
            #expect(await waitUntilFreed(watched), "the promises were freed: \(watched.map { $0.object.map { String(reflecting: $0) } ?? "freed" })")
            #expect(ReportLog.reports(for: id).isEmpty)
        }
    }

    @Test("R14 not reported: rejected after every promise derived from it was cancelled")
    func rejectedAfterDependentsCancelled() async throws {
        // Its dependents registered for the outcome and then gave it up: an error nobody wants any
        // more is not an unhandled one (the Semantics article, *Unhandled rejections*).
        try await expectNoReport(20) {
            let (promise, resolver) = Promise<Int>.pending(tracksInterest: false)
            let children = [promise.then { $0 + 1 }, promise.map { $0 * 2 }]
            for child in children { child.cancel() }
            resolver.reject(DiagnosedError(id: 20))
            for child in children { #expect(child.isCancelled) }
            return [promise.core] + children.map(\.core)
        }
    }

    @Test("R14 not reported: rejected before every promise derived from it was cancelled, while their handlers waited")
    func rejectedBeforeDependentsCancelled() async throws {
        // The rejection had settled, but the handlers that would have taken it still waited in a
        // busy queue when their promises were cancelled: it never reached them. Whether it came
        // a moment before or after the cancel is a race the caller cannot see, so the decision
        // is the same either way: not reported (the Semantics article, *Unhandled rejections*).
        try await expectNoReport(24) {
            let (queue, release) = LateCancelTests.busyQueue()
            let promise = Promise<Int>(error: DiagnosedError(id: 24))
            let children = [promise.then(on: queue) { $0 + 1 }, promise.map(on: queue) { $0 * 2 }]
            for child in children { child.cancel() }
            release()
            for child in children { #expect(child.isCancelled) }
            return [promise.core] + children.map(\.core)
        }
    }

    @Test("R14 not reported: handled at the end of a chain")
    func handledAtEnd() async throws {
        try await expectNoReport(10) {
            let failing = Promise<Int>(error: DiagnosedError(id: 10))
            let end = failing.then { $0 + 1 }.catch { _ in }
            try await end.value
            return [failing.core, end.core]
        }
    }

    @Test("R14 not reported: recovered")
    func recovered() async throws {
        try await expectNoReport(11) {
            let failing = Promise<Int>(error: DiagnosedError(id: 11))
            let value = try await failing.recover { _ in 0 }.value
            #expect(value == 0)
            return [failing.core]
        }
    }

    @Test("R14 not reported: cancelled")
    func cancelled() async throws {
        try await expectNoReport(12) {
            let (promise, _keep) = Promise<Int>.pending()
            promise.cancel()
            _ = _keep
            return [promise.core]
        }
    }

    @Test("R14 not reported: awaited in a task that throws")
    func awaitedInThrowingTask() async throws {
        try await expectNoReport(13) {
            let failing = Promise<Int>(error: DiagnosedError(id: 13))
            let task = Task { try await failing.value }
            await #expect(throws: DiagnosedError(id: 13)) { try await task.value }
            return [failing.core]
        }
    }

    @Test("R14 not reported: whenComplete")
    func whenCompleteTakesIt() async throws {
        try await expectNoReport(14) {
            let failing = Promise<Int>(error: DiagnosedError(id: 14))
            let called = Countdown(1)
            failing.whenComplete { (_: Result<Int, any Error>) in called.tick() }
            try await called.wait()
            return [failing.core]
        }
    }

    @Test("R14 not reported: a catch attached later, before release")
    func lateCatch() async throws {
        try await expectNoReport(15) {
            let (promise, resolver) = Promise<Int>.pending()
            resolver.reject(DiagnosedError(id: 15))
            await Task.yield()   // the rejection is old news by now
            try await promise.catch { _ in }.value
            return [promise.core]
        }
    }

    @Test("R14 not reported: race and any losers that reject after the decision")
    func combinatorLosers() async throws {
        try await expectNoReport(16) {
            let (loser, loserResolver) = Promise<Int>.pending(tracksInterest: false)
            let (other, otherResolver) = Promise<Int>.pending(tracksInterest: false)
            let raced = Promise.race([Promise(value: 1), loser])
            let anyOf = Promise.any([Promise(value: 2), other])
            let first = try await raced.value, second = try await anyOf.value
            #expect(first == 1 && second == 2)
            loserResolver.reject(DiagnosedError(id: 16))
            otherResolver.reject(DiagnosedError(id: 16))
            return [loser.core, other.core]
        }
    }

    @Test("R14 not reported: the second rejection inside a caught all")
    func secondRejectionInAll() async throws {
        try await expectNoReport(17) {
            let (second, secondResolver) = Promise<Int>.pending(tracksInterest: false)
            let all = Promise.all([Promise(error: DiagnosedError(id: 0)), second])
            try await all.catch { _ in }.value
            secondResolver.reject(DiagnosedError(id: 17))
            return [second.core]
        }
    }

    @Test("R14 not reported: the failed attempts of a retry that succeeded")
    func retriedAttempts() async throws {
        try await expectNoReport(18) {
            let attempts = Locked<[PromiseCore<Int>]>([])
            let value = try await Retryable { attempt -> Promise<Int> in
                let promise = attempt < 3 ? Promise<Int>(error: DiagnosedError(id: 18)) : Promise(value: attempt)
                attempts.withLock { $0.append(promise.core) }
                return promise
            }.retry(attempts: 3).run().value
            #expect(value == 3)
            return attempts.current
        }
    }

    @Test("R14 not reported: a timeout's input that rejects after the timeout fired")
    func inputAfterTimeout() async throws {
        try await expectNoReport(19) {
            let (input, resolver) = Promise<Int>.pending(tracksInterest: false)
            await #expect { try await input.timeout(after: .milliseconds(1)).value } throws: {
                ($0 as? PromiseError)?.code == .timedOut
            }
            resolver.reject(DiagnosedError(id: 19))
            return [input.core]
        }
    }

    @Test("R14 not reported as unhandled: an abandoned promise (it has its own report)")
    func abandoned() async throws {
        try await ReportLog.recording {
            // The resolver goes at once, on this thread: the abandonment is reported here, under
            // the tag (other suites report abandonments of their own meanwhile).
            var watched: WeakReference?
            let abandonedReports = AbandonmentLog.recording(tag: "unhandled rejection: abandoned") {
                let (promise, _) = Promise<Int>.pending()
                watched = WeakReference(promise.core)
            }
            #expect(await waitUntilFreed([watched!]))
            #expect(abandonedReports.count == 1)
            #expect(ReportLog.reports.current.allSatisfy { ($0.error as? PromiseError)?.code != .abandoned })
        }
    }

    // MARK: Descriptions

    @Test("a promise and a resolver describe themselves: state, type, site, observers, children")
    func debugDescriptions() async throws {
        let line = #line + 1
        let (promise, resolver) = Promise<Int>.pending()
        // Inline, so that registering and settling are over when each call returns.
        let child = promise.then(on: .inline) { $0 + 1 }
        let heard = Locked<Int?>(nil)
        promise.whenComplete(on: .inline) { outcome in heard.withLock { $0 = try? outcome.get() } }
        #expect(String(reflecting: promise) == "Promise<Int> pending, made at \(site(line)), 2 observers, 1 child")
        #expect(String(reflecting: resolver).hasPrefix("Resolver<Int> of Promise<Int> pending, made at"))
        resolver.fulfill(41)
        #expect(heard.current == 41)
        #expect(try await child.value == 42)
        // The child, settled with nobody waiting on it, has left its parent.
        #expect(String(reflecting: promise) == "Promise<Int> fulfilled with 41, made at \(site(line))")
        promise.cancel()
        #expect(String(reflecting: Promise<Int>(error: PromiseError.cancelled())).hasPrefix("Promise<Int> cancelled, made at"))
    }
}

/// The diagnostics hooks stay one call deep however often they report: a function value read back
/// from generic storage for each report gains a conversion thunk per read, so without the hook's
/// box the ten-thousandth report would call through ten thousand nested thunks (and a
/// long-running process's stacks would grow).
@Suite("R14 diagnostics hooks")
struct DiagnosticHookDepthTests {
    @Test("the handler is called at the same stack depth on the first report and the five-thousandth")
    func constantDepth() {
        let hook = DiagnosticHook<String>()
        // Where the handler's frame sits on the stack: the same address each time, unless the
        // calls in between grew.
        let depths = Locked<[UInt]>([])
        hook.handler = { _ in
            var marker = 0
            let address = withUnsafeMutablePointer(to: &marker) { UInt(bitPattern: $0) }
            depths.withLock { $0.append(address) }
        }
        for index in 0..<5_000 { hook.report("report \(index)") }
        let recorded = depths.current
        #expect(recorded.count == 5_000)
        #expect(recorded.first == recorded.last)
    }
}
