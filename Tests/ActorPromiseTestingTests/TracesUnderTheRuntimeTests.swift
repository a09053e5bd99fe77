import ActorPromise
import ActorPromiseTesting
import Synchronization
import Testing

/// Failure traces (R16) in a test that drives its promises with the test runtime: the path is the
/// same as in the app, on the runtime's virtual clock.
@Suite("Failure traces under the test runtime")
struct TracesUnderTheRuntimeTests {
    enum ServerError: Error, Equatable { case down }

    /// A request that fails after a virtual second.
    static func request() -> Promise<Int> {
        Promise<Void>.after(.seconds(1)).then { () throws -> Int in throw ServerError.down }   // line 14
    }

    init() {
        QuietDiagnostics.install()
        // Release builds start with traces off.
        PromiseTrace.isEnabled = true
    }

    @Test("a request retried, zipped, mapped and timed out fails with the path it took")
    func pathUnderTheRuntime() throws {
        let runtime = PromiseTestRuntime(autoAdvance: true)
        let shown = Mutex<Promise<String>?>(nil)
        do {
            _ = try runtime.run {
                let promise = zip(Promise<Int>.retry(attempts: 2) { _ in Self.request() }, Promise(value: 1))   // line 29
                    .map { "\($0) + \($1)" }                                                                    // line 30
                    .timeout(after: .seconds(30))                                                              // line 31
                shown.withLock { $0 = promise }
                return promise
            }
            Issue.record("the request fails")
        } catch {
            #expect(error as? ServerError == .down)
        }
        let trace = try #require(shown.withLock { $0 }?.failureTrace)
        #expect(trace.cause == .handlerThrew)
        #expect(trace.entries.map { "\($0.operation) @ \($0.site ?? "?")" } == [
            "then @ ActorPromiseTestingTests/TracesUnderTheRuntimeTests.swift:14",
            "retry attempt 2 of 2 @ ActorPromiseTestingTests/TracesUnderTheRuntimeTests.swift:29",
            "zip input 1 of 2 @ ActorPromiseTestingTests/TracesUnderTheRuntimeTests.swift:29",
            "map @ ActorPromiseTestingTests/TracesUnderTheRuntimeTests.swift:30",
            "timeout @ ActorPromiseTestingTests/TracesUnderTheRuntimeTests.swift:31",
        ])
        #expect(runtime.now == .seconds(2))
    }

    @Test("a catch after an await in the runtime's asynchronous run gets the path of its error")
    func awaitedUnderTheRuntime() async throws {
        let runtime = PromiseTestRuntime(autoAdvance: true)
        let trace = try await runtime.run { () async throws -> PromiseTrace? in
            do {
                _ = try await Self.request().map { $0 + 1 }.value   // line 56
                return nil
            } catch {
                return PromiseTrace.of(error)
            }
        }
        let path = try #require(trace)
        #expect(path.handledBy == "await")
        #expect(path.entries.map { "\($0.operation) @ \($0.site ?? "?")" } == [
            "then @ ActorPromiseTestingTests/TracesUnderTheRuntimeTests.swift:14",
            "map @ ActorPromiseTestingTests/TracesUnderTheRuntimeTests.swift:56",
        ])
        #expect(runtime.now == .seconds(1))
    }
}
