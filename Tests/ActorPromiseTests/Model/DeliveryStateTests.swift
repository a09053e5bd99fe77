import Testing
@testable import ActorPromise

/// Adoption and ordered delivery, driven on the state machine directly: no threads, no actors.
@Suite("Promise state machine: adoption and delivery")
struct DeliveryStateTests {
    /// A derived promise, which is its parent's observer.
    static func probe(on context: any ExecutionContext = .global) -> any OutcomeObserver {
        PromiseCore<Int>(PromiseStateMachine(), link: Link.outcome(context: context, taskLocals: nil) { (outcome: Outcome<Int>) in .settle(outcome) })
    }

    @Test("R3 a pending promise that follows a source subscribes to it and records it as its adoptee")
    func followSubscribes() {
        var tree = TreeState(isSettled: false, tracksInterest: true)
        var machine = PromiseStateMachine<Int>()
        let source = PromiseCore<Int>(PromiseStateMachine())
        let follower = PromiseCore<Int>(PromiseStateMachine())
        let effects = machine.follow(source, follower: ObjectIdentifier(follower), tree: &tree)
        #expect(effects.adoption?.subscribeTo === source)
        #expect(effects.adoption?.unwanted == nil)
        #expect(tree.adoptee.map { $0 === source } == true)
        // Settling clears the adoptee, so a settled promise keeps nothing alive through it.
        _ = machine.settle(.success(1), tree: &tree)
        #expect(tree.adoptee == nil)
    }

    @Test("B7 a promise cancelled before it was given its source refuses it; a settled one ignores it")
    func followAfterCancel() {
        var tree = TreeState(isSettled: false, tracksInterest: true)
        var machine = PromiseStateMachine<Int>()
        _ = machine.cancel(reason: nil, tree: &tree)
        let source = PromiseCore<Int>(PromiseStateMachine())
        let late = machine.follow(source, follower: ObjectIdentifier(source), tree: &tree)
        #expect(late.adoption?.unwanted === source, "the source loses the dependent it never got")
        #expect(late.adoption?.subscribeTo == nil)

        var fulfilledTree = TreeState(isSettled: false, tracksInterest: true)
        var fulfilled = PromiseStateMachine<Int>()
        _ = fulfilled.settle(.success(1), tree: &fulfilledTree)
        #expect(fulfilled.follow(source, follower: ObjectIdentifier(source), tree: &fulfilledTree).adoption == nil)
    }

    @Test("R13 following a source whose adoptee is the follower rejects it with adoptionCycle")
    func followCycle() {
        let first = PromiseCore<Int>(PromiseStateMachine())
        var tree = TreeState(isSettled: false, tracksInterest: true)
        var machine = PromiseStateMachine<Int>()
        // `source` already follows `first`; `first` now tries to follow `source`.
        let source = PromiseCore<Int>(PromiseStateMachine())
        source.adopt(first)
        let effects = machine.follow(source, follower: ObjectIdentifier(first), tree: &tree)
        #expect(effects.settled)
        #expect(effects.adoption == nil, "a cycle is not followed")
        guard case .failure(let error as PromiseError)? = machine.outcome else {
            Issue.record("expected a rejection, got \(String(describing: machine.outcome))")
            return
        }
        #expect(error.code == .adoptionCycle)
    }

    @Test("R2 a delivery under way holds back later observers until it ends, then hands them out in order")
    func orderedDelivery() {
        var tree = TreeState(isSettled: false, tracksInterest: false)
        var machine = PromiseStateMachine<Int>()
        _ = machine.register(Self.probe(), child: nil, dependent: true, tree: &tree)
        let settled = machine.settle(.success(1), tree: &tree)
        #expect(settled.holdsDelivery, "an observer on the pool: the delivery must end explicitly")

        let second = Self.probe(), third = Self.probe()
        let during = machine.register(second, child: nil, dependent: true, tree: &tree)
        _ = machine.register(third, child: nil, dependent: true, tree: &tree)
        #expect(during.observers.isEmpty, "held back behind the delivery under way")

        let ended = machine.endDelivery()
        #expect(ended.holdsDelivery, "the held-back observers are a delivery of their own")
        #expect(ended.observers.all.first === second)
        #expect(ended.observers.count == 2 && ended.observers.all[1] === third)

        let quiet = machine.endDelivery()
        #expect(quiet.observers.isEmpty && !quiet.holdsDelivery, "nothing registered meanwhile: the delivery is over")
        let after = machine.register(Self.probe(), child: nil, dependent: true, tree: &tree)
        #expect(!after.observers.isEmpty && after.holdsDelivery, "the next observer starts a new delivery at once")
    }

    @Test("R2 an inline observer is never held back: it runs at once, outside the ordered delivery")
    func inlineNotHeldBack() {
        var tree = TreeState(isSettled: false, tracksInterest: false)
        var machine = PromiseStateMachine<Int>()
        _ = machine.register(Self.probe(), child: nil, dependent: true, tree: &tree)
        _ = machine.settle(.success(1), tree: &tree)
        let inline = machine.register(Self.probe(on: .inline), child: nil, dependent: true, tree: &tree)
        #expect(!inline.observers.isEmpty)
        #expect(!inline.holdsDelivery)
    }
}
