#if ACTORPROMISE_INTERLEAVINGS
@testable import ActorPromise

/// The gate, settlement, cancel walks, the child set, interest and adoption, two threads at a
/// time.
enum CoreScenarios {
    static let all: [Scenario] = [
        settleAgainstRegistration, twoSettlers, resultReadAgainstFulfil, cancelAgainstFulfil, cancelWalkAgainstDerive,
        ancestorAndDescendantCancels, childDoneAgainstReattach, interestLostAgainstNewDependent,
        twoDependentsLostAgainstFulfil,
        lateCancelAgainstQueuedCallback, abandonAgainstRegistration, adoptionAgainstSourceSettling,
        adoptionAgainstCancel, loopLevelAgainstCancel,
    ]

    /// The gate's park-and-leave: a handler registered while the promise is fulfilled runs once,
    /// with the value, whichever thread applies it.
    static let settleAgainstRegistration = Scenario("fulfil against then and whenComplete registered at once") {
        let (promise, resolver) = Promise<Int>.pending()
        let jobs = JobList()
        let log = CallLog()
        return .init(threads: [
            { resolver.fulfill(1) },
            {
                promise.then(on: .inline) { log.add("inline \($0)") }
                promise.whenComplete(on: jobs) { log.add("callback \(describe($0))") }
                jobs.runAll()
            },
            { promise.then(on: jobs) { log.add("queued \($0)") } },
        ], watching: [("promise", promise.core)], check: {
            jobs.runAll()
            var findings = Findings()
            let calls = log.all
            findings.expect(calls.filter { $0 == "inline 1" }.count == 1, "calls: \(calls)")
            findings.expect(calls.filter { $0 == "callback fulfilled(1)" }.count == 1, "calls: \(calls)")
            findings.expect(calls.filter { $0 == "queued 1" }.count == 1, "calls: \(calls)")
            findings.expect(calls.count == 3, "calls: \(calls)")
            findings.gatesFree([promise], ["promise"])
            return findings.problems
        })
    }

    /// Two settlers race: one outcome, every observer hears that one, once (R1).
    static let twoSettlers = Scenario("fulfil and reject at once, an observer registered before", staleReads: 1) {
        let (promise, resolver) = Promise<Int>.pending()
        let log = CallLog()
        promise.whenComplete(on: .inline) { log.add(describe($0)) }
        return .init(threads: [
            { resolver.fulfill(1) },
            { resolver.reject(TestFailure("no")) },
        ], check: {
            var findings = Findings()
            findings.expect(log.all == [state(promise)], "promise \(state(promise)), callback \(log.all)")
            findings.gatesFree([promise], ["promise"])
            return findings.problems
        })
    }

    /// A synchronous read of the result against the fulfilment: a reader that sees the promise
    /// settled sees its value — the status is published only after the outcome it announces.
    static let resultReadAgainstFulfil = Scenario("a synchronous read of the result against the fulfilment", staleReads: 2) {
        let (promise, resolver) = Promise<Int>.pending()
        let seen = Holder<String>()
        return .init(threads: [
            { resolver.fulfill(1) },
            {
                let settled = !promise.isPending
                seen.value = "\(settled) \(promise.result.map { describe($0) } ?? "nil")"
            },
        ], check: {
            var findings = Findings()
            let read = seen.value ?? ""
            findings.expect(read == "false nil" || read == "false fulfilled(1)" || read == "true fulfilled(1)", "read \(read)")
            findings.gatesFree([promise], ["promise"])
            return findings.problems
        })
    }

    /// Cancel against fulfil with handlers two levels down: `onCancel` runs exactly when the
    /// promise ends cancelled; the whole branch agrees; every error observer hears once.
    static let cancelAgainstFulfil = Scenario("cancel against fulfil, a branch two levels deep") {
        let cancels = CallLog()
        let (promise, resolver) = Promise<Int>.pending()
        resolver.onCancel { cancels.add("cancel") }
        let log = CallLog()
        let child = promise.then(on: .inline) { $0 + 1 }
        let grandchild = child.then(on: .inline) { $0 * 10 }
        grandchild.whenComplete(on: .inline) { log.add(describe($0)) }
        return .init(threads: [
            { promise.cancel() },
            { resolver.fulfill(1) },
        ], watching: [("promise", promise.core), ("child", child.core), ("grandchild", grandchild.core)], check: {
            var findings = Findings()
            let cancelled = promise.isCancelled
            findings.expect(cancels.all.count == (cancelled ? 1 : 0), "onCancel ran \(cancels.all.count) times, promise \(state(promise))")
            // A cancel that reaches the fulfilled promise before its inline handler ran still
            // cancels the child on its way (R5: a cancel forwards through settled promises).
            let g = state(grandchild)
            findings.expect(g == "cancelled" || (!cancelled && g == "fulfilled(20)"), "promise \(state(promise)), grandchild \(g)")
            findings.expect(log.all == [g], "callback \(log.all), grandchild \(g)")
            findings.gatesFree([promise, child, grandchild], ["promise", "child", "grandchild"])
            return findings.problems
        })
    }

    /// A cancel walk against a child being derived: the child ends cancelled either way (reached
    /// by the walk, or derived from a cancelled promise), and its `catch` hears it once.
    static let cancelWalkAgainstDerive = Scenario("cancel against a child derived at once") {
        let (promise, resolver) = Promise<Int>.pending()
        let log = CallLog()
        let holder = Holder<Promise<Void>>()
        return .init(threads: [
            { promise.cancel() },
            {
                let child = promise.then(on: .inline) { _ in log.add("value") }
                holder.value = child.catch(on: .inline) { _ in log.add("caught") }
            },
        ], check: {
            var findings = Findings()
            findings.expect(promise.isCancelled, "promise \(state(promise))")
            findings.expect(log.all == ["caught"], "calls \(log.all)")
            if let end = holder.value { findings.gatesFree([end], ["catch"]) }
            findings.gatesFree([promise], ["promise"])
            withExtendedLifetime(resolver) {}
            return findings.problems
        })
    }

    /// Two cancels on one branch from two threads (R5b): every pending promise ends cancelled and
    /// every observer hears it once.
    static let ancestorAndDescendantCancels = Scenario("an ancestor's and a descendant's cancel at once") {
        let (root, resolver) = Promise<Int>.pending()
        let middle = root.then(on: .inline) { $0 }
        let leaf = middle.then(on: .inline) { $0 }
        let log = CallLog()
        middle.whenComplete(on: .inline) { log.add("middle \(describe($0))") }
        leaf.whenComplete(on: .inline) { log.add("leaf \(describe($0))") }
        return .init(threads: [
            { root.cancel() },
            { leaf.cancel() },
        ], watching: [("root", root.core), ("middle", middle.core), ("leaf", leaf.core)], check: {
            var findings = Findings()
            findings.expect(root.isCancelled && middle.isCancelled && leaf.isCancelled,
                            "root \(state(root)), middle \(state(middle)), leaf \(state(leaf))")
            findings.expect(log.all.sorted() == ["leaf cancelled", "middle cancelled"], "callbacks \(log.all)")
            findings.gatesFree([root, middle, leaf], ["root", "middle", "leaf"])
            withExtendedLifetime(resolver) {}
            return findings.problems
        })
    }

    /// A child that becomes done (its parent fulfilled it) while it gains a pending child of its
    /// own, which re-attaches it: a later cancel of the root must still reach the new child. The
    /// root has a second child, still pending, so that the child sits in the root's set beside
    /// another.
    /// Everything is freed once let go of (a parent that kept a done child would keep both).
    static let childDoneAgainstReattach = Scenario("a child's done report against its re-attach") {
        let (root, resolver) = Promise<Int>.pending()
        let held = JobList()
        let sibling = root.then(on: held) { $0 }
        let child = root.then(on: .inline) { $0 }
        // The new child's handler runs on a third thread, so that it can settle — and its
        // parent report done again — between the re-attach and the first done report.
        let jobs = JobList()
        let ran = CallLog()
        let holder = Holder<Promise<Int>>()
        return .init(threads: [
            { resolver.fulfill(1) },
            {
                holder.value = child.then(on: jobs) { value in
                    ran.add("handler")
                    return value + 1
                }
            },
            { jobs.runAll() },
        ], watching: [("root", root.core), ("sibling", sibling.core), ("child", child.core)], check: {
            var findings = Findings()
            let handlerRan = !ran.all.isEmpty
            root.cancel()
            held.runAll()
            jobs.runAll()
            if let grandchild = holder.value {
                let expected = handlerRan ? "fulfilled(2)" : "cancelled"
                findings.expect(state(grandchild) == expected, "the new child (handler run: \(handlerRan)) is \(state(grandchild)) after the root's cancel")
                findings.gatesFree([grandchild], ["new child"])
            }
            findings.expect(root.isFulfilled && child.isFulfilled, "root \(state(root)), child \(state(child))")
            findings.expect(sibling.isCancelled, "sibling, pending at the cancel, is \(state(sibling))")
            findings.gatesFree([root, child], ["root", "child"])
            holder.value = nil
            return findings.problems
        })
    }

    /// The last dependent cancelled while a new one arrives (R7): the promise cancels itself only
    /// if nobody waits; if it does, the newcomer hears the cancellation, and `onCancel` runs
    /// exactly then.
    static let interestLostAgainstNewDependent = Scenario("interest lost against a dependent arriving", staleReads: 1) {
        let cancels = CallLog()
        let (promise, resolver) = Promise<Int>.pending()
        resolver.onCancel { cancels.add("cancel") }
        let first = promise.then(on: .inline) { $0 }
        let log = CallLog()
        let holder = Holder<Promise<Int>>()
        return .init(threads: [
            { first.cancel() },
            {
                let second = promise.then(on: .inline) { $0 }
                second.whenComplete(on: .inline) { log.add(describe($0)) }
                holder.value = second
            },
        ], watching: [("promise", promise.core), ("first", first.core)], check: {
            var findings = Findings()
            let cancelled = promise.isCancelled
            findings.expect(cancels.all.count == (cancelled ? 1 : 0), "onCancel ran \(cancels.all.count) times, promise \(state(promise))")
            findings.expect(log.all == (cancelled ? ["cancelled"] : []), "promise \(state(promise)), newcomer heard \(log.all)")
            findings.expect(first.isCancelled, "first \(state(first))")
            findings.gatesFree([promise, first], ["promise", "first"])
            withExtendedLifetime(resolver) {}
            if let second = holder.value { findings.gatesFree([second], ["second"]) }
            return findings.problems
        })
    }

    /// Both dependents of a promise cancelled on two threads while a third fulfils it (R7): the
    /// promise cancels itself only once both are gone and only if the fulfil came later; then
    /// `onCancel` runs once. Each dependent ends cancelled, or with the value if the fulfil
    /// reached it first.
    static let twoDependentsLostAgainstFulfil = Scenario("two dependents lost at once, against a fulfil", bound: 2) {
        let cancels = CallLog()
        let (promise, resolver) = Promise<Int>.pending()
        resolver.onCancel { cancels.add("cancel") }
        let first = promise.then(on: .inline) { $0 }
        let second = promise.then(on: .inline) { $0 }
        return .init(threads: [
            { first.cancel() },
            { second.cancel() },
            { resolver.fulfill(1) },
        ], watching: [("promise", promise.core), ("first", first.core), ("second", second.core)], check: {
            var findings = Findings()
            let cancelled = promise.isCancelled
            findings.expect(cancelled || state(promise) == "fulfilled(1)", "promise \(state(promise))")
            findings.expect(cancels.all.count == (cancelled ? 1 : 0), "onCancel ran \(cancels.all.count) times, promise \(state(promise))")
            for (name, dependent) in [("first", first), ("second", second)] {
                let s = state(dependent)
                findings.expect(s == "cancelled" || s == "fulfilled(1)", "\(name) \(s)")
                findings.expect(!cancelled || s == "cancelled", "promise cancelled itself while \(name) was \(s)")
            }
            findings.gatesFree([promise, first, second], ["promise", "first", "second"])
            return findings.problems
        })
    }

    /// A callback still queued when its promise, fulfilled, is cancelled late reports the value
    /// (R1, B5).
    static let lateCancelAgainstQueuedCallback = Scenario("a late cancel against a queued whenComplete") {
        let (promise, resolver) = Promise<Int>.pending()
        let jobs = JobList()
        let log = CallLog()
        promise.whenComplete(on: jobs) { log.add(describe($0)) }
        promise.catch(on: jobs) { _ in log.add("caught") }
        return .init(threads: [
            { resolver.fulfill(7) },
            { promise.cancel() },
            { jobs.runAll() },
        ], check: {
            jobs.runAll()
            var findings = Findings()
            let expected = promise.isCancelled ? ["cancelled", "caught"] : ["fulfilled(7)"]
            findings.expect(log.all == expected, "promise \(state(promise)), calls \(log.all)")
            findings.gatesFree([promise], ["promise"])
            return findings.problems
        })
    }

    /// A resolver released while a handler is registered (R8): the promise ends abandoned and
    /// the handler hears it once.
    static let abandonAgainstRegistration = Scenario("a resolver released against a handler registered") {
        let (promise, resolver) = Promise<Int>.pending()
        let box = Holder<Resolver<Int>>()
        box.value = resolver
        let log = CallLog()
        return .init(threads: [
            { box.value = nil },
            { promise.whenComplete(on: .inline) { log.add(describe($0)) } },
        ], check: {
            var findings = Findings()
            let abandoned = if case .failure(let error as PromiseError)? = promise.result { error.code == .abandoned } else { false }
            findings.expect(abandoned, "promise \(state(promise))")
            findings.expect(log.all.count == 1, "callback \(log.all)")
            findings.gatesFree([promise], ["promise"])
            return findings.problems
        })
    }

    /// `resolve(with:)` against the source settling: the follower ends with the source's outcome.
    static let adoptionAgainstSourceSettling = Scenario("resolve(with:) against the source fulfilled") {
        let (follower, resolver) = Promise<Int>.pending()
        let (source, sourceResolver) = Promise<Int>.pending()
        let log = CallLog()
        follower.whenComplete(on: .inline) { log.add(describe($0)) }
        return .init(threads: [
            { resolver.resolve(with: source) },
            { sourceResolver.fulfill(3) },
        ], watching: [("follower", follower.core), ("source", source.core)], check: {
            var findings = Findings()
            findings.expect(state(follower) == "fulfilled(3)", "follower \(state(follower))")
            findings.expect(log.all == ["fulfilled(3)"], "callback \(log.all)")
            findings.gatesFree([follower, source], ["follower", "source"])
            return findings.problems
        })
    }

    /// A follower cancelled while it starts following: the source, which nobody else waits for,
    /// is cancelled with its `onCancel` run once — or keeps going when the cancel came first and
    /// the follower refused it (it still loses that interest).
    static let adoptionAgainstCancel = Scenario("resolve(with:) against a cancel of the follower") {
        let (follower, resolver) = Promise<Int>.pending()
        let cancels = CallLog()
        let (source, sourceResolver) = Promise<Int>.pending()
        sourceResolver.onCancel { cancels.add("source") }
        return .init(threads: [
            { resolver.resolve(with: source) },
            { follower.cancel() },
        ], watching: [("follower", follower.core), ("source", source.core)], check: {
            var findings = Findings()
            findings.expect(follower.isCancelled, "follower \(state(follower))")
            findings.expect(source.isCancelled, "source, wanted by nobody, is \(state(source))")
            findings.expect(cancels.all == ["source"], "source's onCancel ran \(cancels.all.count) times")
            findings.gatesFree([follower, source], ["follower", "source"])
            withExtendedLifetime(sourceResolver) {}
            return findings.problems
        })
    }

    /// One level of a recursive loop (a handler returning the next step) against a cancel of the
    /// loop: the step in flight is cancelled with its `onCancel` once, or the loop's value stands.
    static let loopLevelAgainstCancel = Scenario("a loop's level adopting its step against a cancel") {
        let cancels = CallLog()
        let (first, firstResolver) = Promise<Int>.pending()
        let (step, stepResolver) = Promise<Int>.pending()
        stepResolver.onCancel { cancels.add("step") }
        let ran = CallLog()
        let loop = first.then(on: .inline) { _ in
            ran.add("handler")
            return step
        }
        let outer = loop.then(on: .inline) { $0 }
        return .init(threads: [
            { firstResolver.fulfill(1) },
            { outer.cancel() },
        ], watching: [("first", first.core), ("step", step.core), ("loop", loop.core), ("outer", outer.core)], check: {
            var findings = Findings()
            findings.expect(outer.isCancelled && loop.isCancelled, "loop \(state(loop)), outer \(state(outer))")
            // The first promise, which only the loop waited for, is cancelled unless it was
            // fulfilled first. The step is wanted only if the handler returned it: then the
            // loop, cancelled, followed it or refused it, and nobody else wants it (R7, B7).
            let returned = ran.all == ["handler"]
            findings.expect(first.isFulfilled || first.isCancelled, "first \(state(first))")
            findings.expect(ran.all.count <= 1, "the handler ran \(ran.all.count) times")
            findings.expect(!returned || first.isFulfilled, "the handler ran, first is \(state(first))")
            findings.expect(step.isCancelled == returned, "handler ran: \(returned), step \(state(step))")
            findings.expect(cancels.all.count == (returned ? 1 : 0), "step's onCancel ran \(cancels.all.count) times")
            findings.gatesFree([first, step, loop, outer], ["first", "step", "loop", "outer"])
            withExtendedLifetime(stepResolver) {}
            return findings.problems
        })
    }
}

/// A value one scenario thread writes and the check reads once all threads have finished.
final class Holder<Value>: @unchecked Sendable {
    // Safety: written by one thread of a scenario; read by the check after every thread ended,
    // which the checker orders after the write.
    var value: Value?
}
#endif
