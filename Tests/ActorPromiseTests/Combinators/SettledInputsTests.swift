import Testing
import ActorPromise

/// When a combinator's inputs are already settled as it is called, its result is settled before
/// it returns, unless it runs code of the caller's on a context (Composing promises, *When the
/// result settles*); handlers registered on it still run as R2 says.
@Suite("R2 combinators over settled inputs")
struct SettledInputsTests {
    static let one = Promise(value: 1)
    static let two = Promise(value: 2)
    static let failed = Promise<Int>(error: TestError(id: 9))

    @Test("R2 all, allSettled, any, race, zip, reduce, timeout and retry return a settled result")
    func settledAtOnce() async throws {
        // Inputs of this test's own: the suite's shared ones are registered on by the other tests
        // of the suite, in parallel, and a registration that finds an input's gate taken is left
        // to the thread inside (Composing promises, *When the result settles*).
        let one = Promise(value: 1), two = Promise(value: 2), failed = Promise<Int>(error: TestError(id: 9))
        let results: [(String, Bool)] = [
            ("all", Promise.all([one, two]).isPending),
            ("all rejected", Promise.all([one, failed]).isPending),
            ("allSettled", Promise.allSettled([one, failed]).isPending),
            ("any", Promise.any([failed, two]).isPending),
            ("any rejected", Promise.any([failed, failed]).isPending),
            ("race", Promise.race([one, two]).isPending),
            ("zip", zip(one, two).isPending),
            ("reduce", Promise.reduce([one, two], into: 0) { $0 + $1 }.isPending),
            ("timeout", one.timeout(after: .seconds(60), scheduler: ManualScheduler()).isPending),
            ("retry", Promise<Int>.retry(attempts: 3) { _ in one }.isPending),
            ("retry out of attempts", Promise<Int>.retry(attempts: 1) { _ in failed }.isPending),
            ("empty all", Promise<Int>.all([]).isPending),
            ("empty race", Promise<Int>.race([]).isPending),
        ]
        for (name, isPending) in results { #expect(!isPending, "\(name) was still pending") }
        #expect(try Promise.all([one, two]).result?.get() == [1, 2])
    }

    @Test("R2 reduce on another context and map(maxConcurrency:) settle once the caller's code ran there")
    func settledAfterTheCallersCode() async throws {
        let queue = SerialQueue(label: "settled-inputs")
        let gate = Gate()
        queue.async { gate.wait() }
        let reduced = Promise.reduce([Self.one, Self.two], into: 0, on: queue) { $0 + $1 }
        let mapped = Promise<Int>.map([1, 2], maxConcurrency: 2, on: queue) { Promise(value: $0 * 10) }
        #expect(reduced.isPending && mapped.isPending, "the queue has not run the caller's code yet")
        gate.open()
        #expect(try await reduced.value == 3)
        #expect(try await mapped.value == [10, 20])
    }

    @Test("R2 a handler registered on a settled result still never runs inside then")
    func handlerNotInsideThen() async throws {
        let combined = Promise.all([Self.one, Self.two])
        let caller = currentThreadID()
        // Run inside `then`, the handler would run on this thread; on the pool it runs on one of
        // the pool's threads, which never runs a test's task.
        let handlerThread = combined.then { _ in currentThreadID() }
        #expect(try await handlerThread.value != caller)
    }
}
