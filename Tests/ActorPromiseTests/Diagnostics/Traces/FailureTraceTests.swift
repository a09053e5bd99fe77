import ActorPromise
import Foundation
import Synchronization
import Testing

/// A view model as app code writes it: `@MainActor`, awaiting the repository's promises and
/// keeping the trace of what went wrong for its error report.
@MainActor
final class FeedModel {
    var text = "loading"
    var failure: PromiseTrace?
    let repository: FeedRepository

    init(repository: FeedRepository) { self.repository = repository }

    func load(page: Int) async {
        do {
            text = try await repository.summary(page: page).value
        } catch {
            text = "failed"
            failure = PromiseTrace.of(error)
        }
    }

    func loadParsed(page: Int) async {
        do {
            text = "\(try await repository.parsed(page: page).value)"
        } catch {
            text = "unreadable"
            failure = PromiseTrace.of(error)
        }
    }
}

/// A task-local value a request carries through its handlers.
enum TraceRequest {
    @TaskLocal static var id = "none"
}

/// The operation and site of every entry, `map @ TracedFeed.swift:45`, for comparing whole paths.
private func path(_ trace: PromiseTrace?) -> [String] {
    (trace?.entries ?? []).map { "\($0.operation) @ \($0.site ?? "?")" }
}

/// Failure traces (R16), from where users stand: a `@MainActor` model awaiting an app's chain,
/// handlers asking for the error they handle, and promises describing themselves. Serialized:
/// one test switches traces off for a moment, which the others must not see.
@Suite("Failure traces", .serialized)
struct FailureTraceTests {
    init() {
        // Release builds start with traces off; these tests are about them being on.
        PromiseTrace.isEnabled = true
    }

    // The timeouts run on a manual clock that never moves: however slowly the SDK's queue
    // answers (ThreadSanitizer, a busy machine), the failure is the SDK's, never a timeout.
    @Test("a callback's rejection through retry, map, zip and timeout, awaited by a @MainActor model")
    @MainActor
    func rejectionThroughAnAppChain() async throws {
        let model = FeedModel(repository: FeedRepository(feed: CallbackFeed(pages: 3), scheduler: ManualScheduler()))
        await model.load(page: 7)
        #expect(model.text == "failed")
        let trace = try #require(model.failure)
        #expect(trace.kind == .rejection)
        #expect(trace.cause == .rejected)
        #expect(path(trace) == [
            "promise @ \(FeedLines.at(FeedLines.wrap))",
            "retry attempt 3 of 3 @ \(FeedLines.at(FeedLines.retry))",
            "map @ \(FeedLines.at(FeedLines.rowsMap))",
            "zip input 1 of 2 @ \(FeedLines.at(FeedLines.zip))",
            "map @ \(FeedLines.at(FeedLines.summaryMap))",
            "timeout @ \(FeedLines.at(FeedLines.timeout))",
        ])
        #expect(trace.handledBy == "await")
        // The error is the SDK's own, as thrown: a `catch let e as FeedFailure` still matches.
        await #expect(throws: FeedFailure.notFound(page: 7)) {
            try await model.repository.summary(page: 7).value
        }
    }

    @Test("a handler that throws starts the path at its own promise")
    @MainActor
    func handlerThrew() async throws {
        let model = FeedModel(repository: FeedRepository(feed: CallbackFeed(pages: 3), scheduler: ManualScheduler()))
        await model.loadParsed(page: 1)
        #expect(model.text == "unreadable")
        let trace = try #require(model.failure)
        #expect(trace.cause == .handlerThrew)
        #expect(path(trace) == ["map @ \(FeedLines.at(FeedLines.parse))"])
    }

    @Test("the catch after an await finds its trace however many other tasks' awaits fail first")
    @MainActor
    func awaitedFailureOutlivesOthers() async throws {
        let request = Promise<Int>(error: FeedFailure.notFound(page: 4))
        let line = #line - 1
        do {
            _ = try await request.map { $0 + 1 }.value
            Issue.record("a map of a rejected request fulfilled")
        } catch {
            // More failures than the process keeps for later lookups, thrown to awaiters on other
            // threads, all before this catch asks.
            Self.throwToOtherAwaiters(64)
            let trace = try #require(PromiseTrace.of(error))
            #expect(trace.handledBy == "await")
            #expect(path(trace) == ["promise @ ActorPromiseTests/FailureTraceTests.swift:\(line)", "map @ ActorPromiseTests/FailureTraceTests.swift:\(line + 3)"])
        }
    }

    /// Makes `count` detached tasks await a rejected promise each, and waits until all have thrown.
    private static func throwToOtherAwaiters(_ count: Int) {
        let thrown = DispatchSemaphore(value: 0)
        for page in 0..<count {
            Task.detached {
                _ = try? await Promise<Int>(error: FeedFailure.notFound(page: page)).value
                thrown.signal()
            }
        }
        for _ in 0..<count { thrown.wait() }
    }

    @Test("a timeout starts the path at the promise timeout made")
    func timedOut() async throws {
        let clock = ManualScheduler()
        let repository = FeedRepository(feed: CallbackFeed(pages: 3, silent: [2]), scheduler: clock)
        let summary = repository.summary(page: 2)
        clock.advance(by: .seconds(30))
        do {
            _ = try await summary.value
            Issue.record("the summary of a page that never answers timed out")
        } catch {
            // Asked with the error as caught: cast to `PromiseError` first, it would be a copy.
            #expect((error as? PromiseError)?.code == .timedOut)
            let trace = try #require(PromiseTrace.of(error))
            #expect(trace.cause == .timedOut)
            #expect(path(trace) == ["timeout @ \(FeedLines.at(FeedLines.timeout))"])
        }
        #expect(summary.failureTrace?.cause == .timedOut)
    }

    @Test("an abandoned resolver starts the path where its promise was made")
    func abandoned() async throws {
        let dropped = Promise<Int> { _ in }   // the resolver goes away with the body
        let line = #line - 1
        let doubled = dropped.map { $0 * 2 }
        let error = await #expect(throws: PromiseError.self) { try await doubled.value }
        #expect(error?.code == .abandoned)
        let trace = try #require(doubled.failureTrace)
        #expect(trace.cause == .abandoned)
        #expect(path(trace) == ["promise @ ActorPromiseTests/FailureTraceTests.swift:\(line)", "map @ ActorPromiseTests/FailureTraceTests.swift:\(line + 2)"])
    }

    @Test("a cancel() names its call and the promises it travelled down")
    func cancelCall() throws {
        let (request, resolver) = Promise<Int>.pending()
        defer { withExtendedLifetime(resolver) {} }
        let shown = request.map { "\($0)" }
        let kept = shown.catch { _ in }
        request.cancel()
        let line = #line - 1
        let trace = try #require(kept.failureTrace)
        #expect(trace.kind == .cancellation)
        #expect(trace.cause == .cancelled)
        #expect(trace.entries.first?.causeSite == "ActorPromiseTests/FailureTraceTests.swift:\(line)")
        #expect(trace.entries.map(\.operation) == ["promise", "map", "catch"])
    }

    @Test("a cancelled task's await, and the lost interest it causes")
    func taskCancelled() async throws {
        let (request, resolver) = Promise<Int>.pending()
        // Immediate: the task registers its await before `Task.immediate` returns.
        let task = Task.immediate {
            do {
                _ = try await request.value
                return PromiseTrace?.none
            } catch {
                return PromiseTrace.of(error)
            }
        }
        task.cancel()
        let awaited = try #require(await task.value)
        #expect(awaited.kind == .cancellation)
        #expect(awaited.cause == .taskCancelled)
        // The request had no other waiter: it cancelled itself, and its trace says why.
        #expect(request.failureTrace?.cause == .taskCancelled)
        #expect(resolver.isCancelled)
    }

    @Test("lost interest names the dependent that let go")
    func lostInterest() throws {
        let (request, resolver) = Promise<Int>.pending()
        defer { withExtendedLifetime(resolver) {} }
        let shown = request.map { "\($0)" }
        let line = #line - 1
        shown.cancel()
        let trace = try #require(request.failureTrace)
        #expect(trace.cause == .lostInterest)
        #expect(trace.entries.first?.causeSite == "ActorPromiseTests/FailureTraceTests.swift:\(line)")
    }

    @Test("a catch handler asks for the path of the error it handles")
    func fromACatchHandler() async throws {
        let seen = Mutex<PromiseTrace?>(nil)
        let (request, resolver) = Promise<Int>.pending()
        let handled = request.map { $0 + 1 }.catch { error in seen.withLock { $0 = PromiseTrace.of(error) } }
        let catchLine = #line - 1
        resolver.reject(FeedFailure.unreadable)
        let rejectLine = #line - 1
        try await handled.value
        let trace = try #require(seen.withLock { $0 })
        #expect(trace.entries.first?.causeSite == "ActorPromiseTests/FailureTraceTests.swift:\(rejectLine)")
        #expect(trace.entries.map(\.operation) == ["promise", "map"])
        #expect(trace.handledBy == "catch (ActorPromiseTests/FailureTraceTests.swift:\(catchLine))")
        // An error the handler did not get from a promise has no trace.
        #expect(PromiseTrace.of(FeedFailure.unreadable) == nil)
    }

    @Test("a rejected promise's debugDescription and its unhandled report carry the path")
    func descriptionAndReport() async throws {
        let rejected = Promise<Int>(error: DiagnosedError(id: 5_601)).map { $0 + 1 }
        try await ReportLog.recording {
            _ = await rejected.outcome
            #expect(rejected.debugDescription.contains("rejection path:"))
            #expect(rejected.debugDescription.contains("made rejected, in promise"))
            do {
                _ = Promise<Int>(error: DiagnosedError(id: 5_602)).map { $0 + 1 }.map { $0 * 2 }
            }
            let reports = await ReportLog.wait(for: 5_602)
            let trace = try #require(reports.first?.trace)
            #expect(trace.cause == .madeRejected)
            #expect(trace.entries.map(\.operation) == ["promise", "map", "map"])
            #expect(reports.first?.description.contains("rejection path:") == true)
        }
    }

    @Test("a rejection through a hundred maps keeps the first entries, a count, and the last")
    func longChain() async throws {
        var chain = Promise<Int>(error: FeedFailure.unreadable)
        for _ in 0..<100 { chain = chain.map { $0 + 1 } }
        let last = #line - 1
        await #expect(throws: FeedFailure.unreadable) { try await chain.value }
        let trace = try #require(chain.failureTrace)
        #expect(trace.entries.count == PromiseTrace.limit)
        #expect(trace.entries.last?.omittedBefore == 101 - PromiseTrace.limit)
        #expect(trace.entries.last?.site == "ActorPromiseTests/FailureTraceTests.swift:\(last)")
        #expect(trace.description.contains("… \(101 - PromiseTrace.limit) more"))
    }

    @Test("a recursive loop that fails after thousands of iterations keeps a bounded trace")
    func boundedDepth() async throws {
        @Sendable func countdown(_ n: Int) -> Promise<Int> {
            n == 0 ? Promise(error: FeedFailure.unreadable) : Promise(value: n).then(on: .inline) { countdown($0 - 1) }
        }
        let loop = countdown(5_000)
        await #expect(throws: FeedFailure.unreadable) { try await loop.value }
        let trace = try #require(loop.failureTrace)
        #expect(trace.entries.count <= PromiseTrace.limit)
        #expect(trace.cause == .madeRejected)
    }

    @Test("task-local values reach handlers while traces keep the sites of the promises")
    func taskLocalsAndTraces() async throws {
        PromiseTaskLocals.propagate(TraceRequest.$id)
        let seen = Mutex<[String]>([])
        let (request, resolver) = Promise<Int>.pending()
        let failed = TraceRequest.$id.withValue("checkout") {
            request.map { $0 + 1 }.tap { _ in seen.withLock { $0.append(TraceRequest.id) } }
        }
        let line = #line - 2
        resolver.reject(FeedFailure.unreadable)
        _ = await failed.outcome
        #expect(seen.withLock { $0 } == ["checkout"])
        #expect(failed.failureTrace?.entries.map { "\($0.operation) @ \($0.site ?? "?")" }.suffix(2) == [
            "map @ ActorPromiseTests/FailureTraceTests.swift:\(line)", "tap @ ActorPromiseTests/FailureTraceTests.swift:\(line)",
        ])
    }

    @Test("off by default in release builds; switched off no trace is recorded, switched on traces come back")
    func theSwitch() async {
        // In a process of its own: the switch is the whole process's, and the other tests here
        // keep it on.
        await #expect(processExitsWith: .success) {
            #if DEBUG
            guard PromiseTrace.isEnabled else { exit(1) }
            #else
            guard !PromiseTrace.isEnabled else { exit(2) }
            #endif
            PromiseTrace.isEnabled = false
            let quiet = Promise<Int> { $0.reject(FeedFailure.unreadable) }.map(on: .inline) { $0 + 1 }
            guard quiet.failureTrace == nil else { exit(3) }
            PromiseTrace.isEnabled = true
            let traced = Promise<Int> { $0.reject(FeedFailure.unreadable) }.map(on: .inline) { $0 + 1 }
            guard traced.failureTrace?.cause == .rejected, traced.failureTrace?.entries.count == 2 else { exit(4) }
            exit(0)
        }
    }
}
