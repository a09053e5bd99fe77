import Testing
import Foundation
import Synchronization
import ActorPromise
import ActorPromiseTesting

/// The code of the `PromiseError` that `body` throws, if it throws one.
func code(_ body: () throws -> Any) -> PromiseError.Code? {
    do {
        _ = try body()
        return nil
    } catch {
        return (error as? PromiseError)?.code
    }
}

/// What a test sees of `PromiseTestRuntime`: the same order every run, orders explored by seed
/// with each context's own order kept, virtual time, exact idleness, `wait()` that drives the
/// runtime, and no effect outside the thread it drives.
@Suite("PromiseTestRuntime: deterministic orders, virtual time, idle")
struct PromiseTestRuntimeTests {
    init() { QuietDiagnostics.install() }

    /// A log the handlers write to; they run on the test's thread, one at a time.
    final class Log: Sendable {
        let lines = Mutex<[String]>([])
        func add(_ line: String) { lines.withLock { $0.append(line) } }
        var current: [String] { lines.withLock { $0 } }
    }

    /// A small app-like graph over the pool, two serial queues and a concurrent queue.
    static func scenario(_ runtime: PromiseTestRuntime) -> [String] {
        let log = Log()
        let first = SerialQueue(label: "first"), second = SerialQueue(label: "second")
        let shared = ConcurrentQueue(label: "shared")
        runtime.run {
            let (root, resolver) = Promise<Int>.pending()
            for index in 0..<3 {
                root.then(on: first) { log.add("first \(index) got \($0)") }
                root.then(on: second) { log.add("second \(index) got \($0)") }
                root.then { log.add("pool \(index) got \($0)") }
                    .then(on: shared) { log.add("shared after pool \(index)") }
            }
            resolver.fulfill(7)
        }
        return log.current
    }

    @Test("without a seed, the same order every run: submission order")
    func sameOrderEveryRun() {
        let reference = Self.scenario(PromiseTestRuntime())
        #expect(reference.count == 12)
        for _ in 0..<20 { #expect(Self.scenario(PromiseTestRuntime()) == reference) }
    }

    @Test("a seed replays one order exactly; different seeds explore different orders, each context's order kept")
    func seedsExploreOrders() {
        var orders: Set<[String]> = []
        for seed in UInt64(1)...30 {
            let order = Self.scenario(PromiseTestRuntime(seed: seed))
            #expect(Self.scenario(PromiseTestRuntime(seed: seed)) == order)
            orders.insert(order)
            // Each serial queue stays FIFO; a chain's second step follows its first.
            for queue in ["first", "second"] {
                #expect(order.filter { $0.hasPrefix(queue) } == (0..<3).map { "\(queue) \($0) got 7" })
            }
            for index in 0..<3 {
                let pool = order.firstIndex(of: "pool \(index) got 7")!
                let shared = order.firstIndex(of: "shared after pool \(index)")!
                #expect(pool < shared)
            }
        }
        #expect(orders.count > 1)
    }

    @Test("a 30-second timeout fires in virtual time with autoAdvance; wait() drives the runtime")
    func virtualTimeout() throws {
        let runtime = PromiseTestRuntime(autoAdvance: true)
        let (never, resolver) = Promise<Int>.pending()
        #expect(code { try runtime.run { never.timeout(after: .seconds(30)) } } == .timedOut)
        #expect(runtime.now == .seconds(30))
        _ = resolver
    }

    @Test("advance(by:) fires due timers in deadline order and runs what each releases before the next")
    func advanceInOrder() {
        let runtime = PromiseTestRuntime()
        let log = Log()
        runtime.run {
            for seconds in [3, 1, 2] {
                Promise(value: seconds).delay(.seconds(seconds)).then { log.add("delay \($0)") }
            }
        }
        #expect(log.current.isEmpty)
        #expect(runtime.pendingTimerCount == 3)
        runtime.advance(by: .milliseconds(1_500))
        #expect(log.current == ["delay 1"])
        #expect(runtime.now == .milliseconds(1_500))
        runtime.advance(by: .seconds(5))
        #expect(log.current == ["delay 1", "delay 2", "delay 3"])
        #expect(runtime.pendingTimerCount == 0)
    }

    @Test("runUntilIdle returns when nothing can run; without autoAdvance timers stay pending")
    func idleIsExact() {
        let runtime = PromiseTestRuntime()
        let log = Log()
        runtime.run {
            Promise(value: 1).then { log.add("now \($0)") }
            Promise(value: 2).delay(.seconds(10)).then { log.add("later \($0)") }
        }
        #expect(log.current == ["now 1"])
        #expect(runtime.queuedJobCount == 0)
        #expect(runtime.pendingTimerCount == 1)
        runtime.runUntilIdle()
        #expect(log.current == ["now 1"])
    }

    @Test("retry back-off runs on the virtual clock")
    func retryBackOff() throws {
        let runtime = PromiseTestRuntime(autoAdvance: true)
        let attempts = Mutex(0)
        let value = try runtime.run {
            try Promise<Int>.retry(attempts: 3, delay: .fixed(.seconds(60))) { attempt in
                attempts.withLock { $0 += 1 }
                return attempt < 3 ? Promise(error: PromiseError(.timedOut)) : Promise(value: attempt)
            }.wait()
        }
        #expect(value == 3)
        #expect(attempts.withLock { $0 } == 3)
        #expect(runtime.now == .seconds(120))
    }

    @Test("wait() on a promise nothing in the runtime can settle throws wouldDeadlock instead of hanging")
    func stuckWait() {
        let runtime = PromiseTestRuntime()
        let (stuck, resolver) = Promise<Int>.pending()
        #expect(code { try runtime.run { try stuck.then { $0 }.wait() } } == .wouldDeadlock)
        _ = resolver
    }

    @Test("main-context handlers run on the main actor in a main-actor test, in order with the rest")
    @MainActor func mainActorHandlers() {
        let runtime = PromiseTestRuntime()
        final class Model { var lines: [String] = [] }
        let model = Model()
        runtime.run {
            let root = Promise(value: 1)
            root.then(on: .main) { value in model.lines.append("main \(value)") }
            root.then { $0 + 1 }.then(on: .main) { value in model.lines.append("main after pool \(value)") }
        }
        #expect(model.lines == ["main 1", "main after pool 2"])
    }

    @Test("another thread's jobs run on their contexts as always, outside the runtime")
    func otherThreadsUntouched() async throws {
        let runtime = PromiseTestRuntime()
        let (root, resolver) = Promise<Int>.pending()
        var inside: Promise<Int>!
        runtime.run { inside = root.then { $0 * 2 } }
        // Settled from another thread: the handler's job goes to the real pool.
        await Task.detached { resolver.fulfill(21) }.value
        #expect(try await inside.value == 42)
        #expect(runtime.queuedJobCount == 0)
    }

    @Test("releasing a runtime with a timer pending cancels it: the promise waiting for it is abandoned, no hang")
    func releaseWithTimer() throws {
        var runtime: PromiseTestRuntime? = PromiseTestRuntime()
        var delayed: Promise<Int>!
        runtime!.run { delayed = Promise(value: 1).delay(.seconds(5)) }
        #expect(runtime!.pendingTimerCount == 1)
        #expect(delayed.isPending)
        runtime = nil
        #expect(code { try delayed.result!.get() } == .abandoned)
    }
}
