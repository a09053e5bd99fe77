import Testing
import Foundation
import Synchronization
import ActorPromise
import ActorPromiseTesting

/// The contexts a `PromiseTestRuntime` drives keep their own rules there, and the asynchronous
/// form, `explore(seeds:)` and the pending report behave as a test author expects.
@Suite("PromiseTestRuntime: every context, the async form, exploring seeds, what is pending")
struct RuntimeContextsTests {
    init() { QuietDiagnostics.install() }

    typealias Log = PromiseTestRuntimeTests.Log

    @Test("an OperationExecutor keeps its rules: a suspended one runs nothing until resumed, priorities order the rest")
    func operationExecutor() {
        let runtime = PromiseTestRuntime()
        let log = Log()
        let executor = OperationExecutor(label: "ops", maxConcurrentCount: 1)
        runtime.run {
            executor.suspend()
            Promise(value: 1).then(on: executor) { log.add("low \($0)") }
            Promise(value: 2).then(on: executor.context(priority: .high)) { log.add("high \($0)") }
        }
        #expect(log.current.isEmpty)
        #if DEBUG
        #expect(runtime.pendingReport().count == 2)   // sites and reports: debug builds
        #endif
        runtime.run { executor.resume() }
        #expect(log.current == ["high 2", "low 1"])
        #expect(runtime.pendingReport().isEmpty)
    }

    @Test("a RunLoopThread's handlers run in the runtime as the loop's; after stop they are dropped as the loop drops them")
    func runLoopThread() throws {
        let runtime = PromiseTestRuntime()
        let loop = RunLoopThread(name: "loop")
        let seen = Mutex<[Bool]>([])
        try runtime.run {
            Promise(value: 1).then(on: loop) { _ in seen.withLock { $0.append(loop.isCurrent) } }
        }
        #expect(seen.withLock { $0 } == [true])
        let dropped = code {
            try runtime.run { () -> Promise<Int> in
                let (pending, resolver) = Promise<Int>.pending()
                let late = pending.then(on: loop) { $0 }
                loop.stop()
                resolver.fulfill(2)
                return late
            }
        }
        #expect(dropped == .abandoned)
    }

    @Test("a serial DispatchQueue's handlers run in order, as the queue's")
    func dispatchQueue() {
        let runtime = PromiseTestRuntime(seed: 7)
        let log = Log()
        let queue = DispatchQueue(label: "serial")
        runtime.run {
            for index in 0..<5 { Promise(value: index).then(on: queue) { log.add("\($0)") } }
        }
        #expect(log.current == ["0", "1", "2", "3", "4"])
    }

    @Test("the async form: awaiting promises, timers and child tasks run in the runtime's order")
    func asyncForm() async throws {
        let runtime = PromiseTestRuntime(autoAdvance: true)
        let log = Log()
        let total = try await runtime.run {
            async let first = Promise(value: 1).delay(.seconds(5)).value
            let second = try await Promise(value: 2).then { log.add("pool"); return $0 }.value
            let third = try await Promise<Int>.retry(attempts: 2, delay: .fixed(.seconds(30))) { attempt in
                attempt == 1 ? Promise(error: PromiseError(.timedOut)) : Promise(value: 3)
            }.value
            return try await first + second + third
        }
        #expect(total == 6)
        #expect(log.current == ["pool"])
        #expect(runtime.now == .seconds(30))
    }

    @Test("the async form gives up on a body that waits for what never comes, with what is pending")
    func asyncStuck() async {
        let runtime = PromiseTestRuntime()
        let (never, resolver) = Promise<Int>.pending()
        do {
            _ = try await runtime.run(hangGuard: .milliseconds(200)) { try await never.then { $0 + 1 }.value }
            Issue.record("a stuck body returned")
        } catch let stuck as StuckRun {
            #if DEBUG
            #expect(stuck.pending.contains { $0.contains("waits for its parent") })
            #endif
        } catch {
            Issue.record("threw \(error)")
        }
        _ = resolver
    }

    @Test("explore(seeds:) finds the order that breaks a racy check, and its seed replays it")
    func exploreFindsRace() throws {
        // Two writers on the pool: which runs last depends on the order.
        func scenario(_ runtime: PromiseTestRuntime) throws {
            let last = Mutex("")
            runtime.run {
                Promise(value: "a").then { value in last.withLock { $0 = value } }
                Promise(value: "b").then { value in last.withLock { $0 = value } }
            }
            struct WrongWinner: Error {}
            if last.withLock({ $0 }) != "b" { throw WrongWinner() }
        }
        let failure = try #require(try PromiseTestRuntime.explore(seeds: 1...64, scenario))
        #expect(failure.order.allSatisfy { $0.hasPrefix("pool") })
        #if DEBUG
        #expect(failure.order.allSatisfy { $0.contains("handler of the promise made at ") && $0.contains("RuntimeContextsTests.swift:") }, "\(failure.order)")
        #endif
        #expect(throws: (any Error).self) { try scenario(PromiseTestRuntime(seed: failure.seed)) }
        #expect(try PromiseTestRuntime.explore(seeds: [0], { try scenario(PromiseTestRuntime()); _ = $0 }) == nil)
    }

    @Test("pendingReport names each pending promise, where it was made, and what it waits for")
    func pendingReport() {
        // Release builds list promises while tracking is on (debug builds always track); it
        // stays on, as the pending snapshot's tests leave it.
        PromiseDiagnostics.tracksPending = true
        let runtime = PromiseTestRuntime()
        let (root, resolver) = Promise<Int>.pending()
        let (child, report) = runtime.run { () -> (Promise<Int>, [String]) in
            let child = root.then { $0 + 1 }
            return (child, runtime.pendingReport())
        }
        #expect(report.count == 1)
        #expect(report.first?.contains("RuntimeContextsTests.swift") == true)
        #expect(report.first?.contains("waits for its parent") == true)
        runtime.run { resolver.fulfill(1) }
        #expect(child.result.map { try? $0.get() } == 2)
        #expect(runtime.pendingReport().isEmpty)
    }

    @Test("a runtime's reports list only the promises made under it, also in the memory of a freed runtime")
    func reportsOnlyItsOwn() {
        PromiseDiagnostics.tracksPending = true
        let (root, resolver) = Promise<Int>.pending()
        var first: PromiseTestRuntime? = PromiseTestRuntime()
        let madeUnderFirst = first!.run { () -> [Promise<Int>] in [root.then { $0 + 1 }] }[0]   // not awaited: left pending
        let freedAddress = ObjectIdentifier(first!)
        first = nil
        // The allocator hands the freed memory to one of the next runtimes of the same size (not
        // AddressSanitizer's, which holds freed memory back: there each report is empty anyway).
        var made: [PromiseTestRuntime] = []
        repeat { made.append(PromiseTestRuntime()) } while made.count < 100 && ObjectIdentifier(made.last!) != freedAddress
        for runtime in made {
            #expect(runtime.pendingReport().isEmpty, "a later runtime lists a promise of the first")
        }
        #expect(madeUnderFirst.isPending)
        resolver.fulfill(1)
    }
}
