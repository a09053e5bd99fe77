#if ACTORPROMISE_INTERLEAVINGS
@testable import ActorPromise
import ActorPromiseTesting

/// The test runtime's hand-over of work from outside it: a completion handler the runtime waits
/// for, called on another thread while the runtime's driving thread runs out of jobs and waits.
enum TestRuntimeScenarios {
    static let all: [Scenario] = [outsideCallbackAgainstTheDriver, twoOutsideCallbacks]

    /// A callback from another thread against the driver going to wait for it: the run returns
    /// the value it delivered, and the driver never had to wait for its time to run out (a lost
    /// wake-up would leave it asleep until `outsideWorkTimeout`).
    static let outsideCallbackAgainstTheDriver = Scenario("test runtime: a callback from another thread against the driver waiting for it") {
        let runtime = PromiseTestRuntime(callbacks: .fromOtherThreads)
        let handlers = Handed<@Sendable (Result<Int, any Error>) -> Void>()
        let got = Holder<String>()
        let timed = Holder<Bool>()
        return .init(threads: [
            {
                do {
                    got.value = "\(try runtime.run { Promise<Int> { resolver in handlers.put(resolver.completion()) } })"
                } catch {
                    got.value = "threw \(error)"
                }
                timed.value = InterleavingChecker.shared.timeHasPassed
            },
            {
                InterleavingChecker.shared.wait { handlers.count > 0 }
                handlers.take(0)(.success(7))
            },
        ], check: {
            var findings = Findings()
            findings.expect(got.value == "7", "the run returned \(got.value ?? "nothing")")
            findings.expect(timed.value == false, "the driver waited until its time ran out")
            return findings.problems
        })
    }

    /// Two callbacks of one run, called on two threads at once while the driver waits: both
    /// deliver, each once, and the run waits for both without its time running out.
    static let twoOutsideCallbacks = Scenario("test runtime: two callbacks from two threads against the driver", bound: 1) {
        let runtime = PromiseTestRuntime(callbacks: .fromOtherThreads)
        let handlers = Handed<@Sendable (Result<Int, any Error>) -> Void>()
        let got = Holder<String>()
        let timed = Holder<Bool>()
        let caller: @Sendable (Int) -> @Sendable () -> Void = { index in
            {
                InterleavingChecker.shared.wait { handlers.count > index }
                handlers.take(index)(.success(index + 1))
            }
        }
        return .init(threads: [
            {
                let value = try? runtime.run {
                    let first = Promise<Int> { resolver in handlers.put(resolver.completion()) }
                    let second = Promise<Int> { resolver in handlers.put(resolver.completion()) }
                    return zip(first, second).map { $0 * 10 + $1 }
                }
                got.value = value.map { "\($0)" } ?? "threw"
                timed.value = InterleavingChecker.shared.timeHasPassed
            },
            caller(0),
            caller(1),
        ], check: {
            var findings = Findings()
            findings.expect(got.value == "12", "the run returned \(got.value ?? "nothing")")
            findings.expect(timed.value == false, "the driver waited until its time ran out")
            return findings.problems
        })
    }
}

/// Values one scenario thread hands to others, in order, under a ``ScenarioLock``.
final class Handed<Value>: @unchecked Sendable {
    // Safety: `values` is touched only with `lock` held.
    private let lock = ScenarioLock()
    private var values: [Value] = []

    func put(_ value: Value) { lock.withLock { values.append(value) } }

    var count: Int { lock.withLock { values.count } }

    /// The value put in `index`-th.
    func take(_ index: Int) -> Value { lock.withLock { values[index] } }
}
#endif
