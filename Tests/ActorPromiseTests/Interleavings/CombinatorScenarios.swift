#if ACTORPROMISE_INTERLEAVINGS
@testable import ActorPromise

/// Combinators, `timeout`, `retry` and `reduce` observe their inputs: a cancel that reaches an
/// input after it settled changes nothing for them (Semantics, *Cancellation*).
enum CombinatorScenarios {
    static let all: [Scenario] = [lateCancelOfRaceInZip, lateCancelOfZipInput, lateCancelOfRetryAttempt,
                                  lateCancelOfTimeoutInput, lateCancelOfReduceInput, raceOfTwoWinners,
                                  allRejectedWhileCancelled]

    /// Six promises: `#4 = race(#2, #0, #3, #3)` is cancelled on one thread while `#0` is fulfilled
    /// on another; `#5 = zip(#4, #1, #1)` must end cancelled exactly when `#4` does.
    static let lateCancelOfRaceInZip = Scenario("a late cancel of a race's result leaks into a zip that observes it", bound: 2) {
        let (p0, r0) = Promise<Int>.pending()
        let (p1, r1) = Promise<Int>.pending(tracksInterest: false)
        let (p2, r2) = Promise<Int>.pending()
        let p3 = zip(p1, p2, p2).map(on: .inline) { $0.0 }
        let p4 = Promise.race([p2, p0, p3, p3])
        let p5 = zip(p4, p1, p1)
        return .init(threads: [
            { p4.cancel() },
            { r0.fulfill(73) },
        ], watching: [("#0", p0.core), ("#2", p2.core), ("#3", p3.core), ("#4", p4.core), ("#5", p5.core)], check: {
            var findings = Findings()
            let s4 = state(p4), s5 = state(p5)
            findings.expect(s4 == "cancelled" || s4 == "fulfilled(73)", "#4 is \(s4)")
            findings.expect((s4 == "cancelled") == (s5 == "cancelled"), "#4 is \(s4) but #5 is \(s5)")
            findings.expect(s4 == "cancelled" || s5 == "pending", "#4 is \(s4) and #5 is \(s5): #1 is pending")
            findings.expect(p1.isPending, "#1 (no interest tracking) is \(state(p1))")
            findings.gatesFree([p0, p1, p2, p3, p4], ["#0", "#1", "#2", "#3", "#4"])
            withExtendedLifetime((r1, r2)) {}
            return findings.problems
        })
    }

    static let lateCancelOfZipInput = Scenario("zip's input fulfilled on one thread, cancelled on another") {
        let (a, ra) = Promise<Int>.pending()
        let b = Promise(value: "b")
        let zipped = zip(a, b)
        return .init(threads: [
            { ra.fulfill(1) },
            { a.cancel() },
        ], check: {
            var findings = Findings()
            let expected = a.isCancelled ? "cancelled" : "fulfilled((1, \"b\"))"
            findings.expect(state(zipped) == expected, "input \(state(a)), zip \(state(zipped))")
            findings.gatesFree([a], ["input"])
            return findings.problems
        })
    }

    static let lateCancelOfRetryAttempt = Scenario("retry's attempt fulfilled on one thread, cancelled on another") {
        let (attempt, resolver) = Promise<Int>.pending()
        let run = Promise.retry(attempts: 1) { _ in attempt }
        return .init(threads: [
            { resolver.fulfill(5) },
            { attempt.cancel() },
        ], watching: [("attempt", attempt.core), ("retry", run.core)], check: {
            var findings = Findings()
            findings.expect(state(run) == state(attempt), "attempt \(state(attempt)), retry \(state(run))")
            findings.gatesFree([attempt, run], ["attempt", "retry"])
            return findings.problems
        })
    }

    static let lateCancelOfTimeoutInput = Scenario("timeout's input fulfilled on one thread, cancelled on another") {
        let (input, resolver) = Promise<Int>.pending()
        let scheduler = ManualScheduler()
        let limited = input.timeout(after: .seconds(10), scheduler: scheduler)
        return .init(threads: [
            { resolver.fulfill(5) },
            { input.cancel() },
        ], watching: [("input", input.core), ("timeout", limited.core)], check: {
            var findings = Findings()
            findings.expect(state(limited) == state(input), "input \(state(input)), timeout \(state(limited))")
            findings.gatesFree([input, limited], ["input", "timeout"])
            return findings.problems
        })
    }

    static let lateCancelOfReduceInput = Scenario("reduce's input fulfilled on one thread, cancelled on another") {
        let (input, resolver) = Promise<Int>.pending()
        let total = Promise.reduce([Promise(value: 1), input], into: 0) { $0 + $1 }
        return .init(threads: [
            { resolver.fulfill(5) },
            { input.cancel() },
        ], check: {
            var findings = Findings()
            let expected = input.isCancelled ? "cancelled" : "fulfilled(6)"
            findings.expect(state(total) == expected, "input \(state(input)), reduce \(state(total))")
            findings.gatesFree([input, total], ["input", "reduce"])
            return findings.problems
        })
    }

    /// Two inputs of a race fulfilled at once: one wins, the result settles once, and the race
    /// lets go of the other input (interest) without cancelling one that settled.
    static let raceOfTwoWinners = Scenario("race: two inputs fulfilled at once") {
        let (a, ra) = Promise<Int>.pending()
        let (b, rb) = Promise<Int>.pending()
        let winner = Promise.race([a, b])
        let log = CallLog()
        winner.then(on: .inline) { log.add("won \($0)") }
        return .init(threads: [
            { ra.fulfill(1) },
            { rb.fulfill(2) },
        ], check: {
            var findings = Findings()
            findings.expect(log.count(prefix: "won") == 1, "handler calls: \(log.all)")
            let s = state(winner)
            findings.expect(s == "fulfilled(1)" || s == "fulfilled(2)", "race is \(s)")
            // The race lets go of the loser: pending then, it cancels itself (interest, R7).
            findings.expect([a, b].allSatisfy { $0.isFulfilled || $0.isCancelled }, "inputs \(state(a)), \(state(b))")
            findings.expect(a.isFulfilled || b.isFulfilled, "inputs \(state(a)), \(state(b))")
            findings.gatesFree([a, b, winner], ["a", "b", "race"])
            return findings.problems
        })
    }

    /// `all`'s input rejected while the result is cancelled: the result settles once; every input
    /// nobody else waits for is cancelled (interest) with its `onCancel` run once, or keeps its
    /// outcome.
    static let allRejectedWhileCancelled = Scenario("all: an input rejected while the result is cancelled") {
        let (a, ra) = Promise<Int>.pending()
        let cancels = CallLog()
        let (b, rb) = Promise<Int>.pending()
        rb.onCancel { cancels.add("b") }
        let both = Promise<Int>.all([a, b])
        let log = CallLog()
        both.catch(on: .inline) { log.add(describe(Result<Int, any Error>.failure($0))) }
        return .init(threads: [
            { ra.reject(TestFailure("a failed")) },
            { both.cancel() },
        ], check: {
            var findings = Findings()
            let s = state(both)
            findings.expect(s == "cancelled" || s == "rejected(a failed)", "all is \(s)")
            findings.expect(log.all == [s], "catch calls \(log.all), all is \(s)")
            findings.expect(b.isCancelled, "b, which only the all waited for, is \(state(b))")
            findings.expect(cancels.all == ["b"], "b's onCancel ran \(cancels.all.count) times")
            findings.gatesFree([a, b], ["a", "b"])
            findings.gatesFree([both], ["all"])
            withExtendedLifetime(rb) {}
            return findings.problems
        })
    }
}
#endif
