import Testing
import ActorPromiseTesting
@testable import ActorPromise

/// The set that holds a promise's children beyond the first, against `Set` as a model.
@Suite("Child set")
struct ChildSetTests {
    /// The abandonments these tests provoke are recorded, not printed as warnings.
    init() { AbandonmentLog.install() }

    @Test("inserts and removals in random order keep exactly the children still present", arguments: [1, 2, 3, 4])
    func matchesModel(seed: UInt64) {
        var random = SplitMix64(state: seed)
        let nodes = (0..<600).map { _ in PromiseCore<Int>(PromiseStateMachine()) }
        var set = ChildSet()
        var model = Set<ObjectIdentifier>()
        for _ in 0..<5_000 {
            let node = nodes[Int.random(in: 0..<nodes.count, using: &random)]
            let id = ObjectIdentifier(node)
            if Bool.random(using: &random) {
                set.insert(node)
                model.insert(id)
            } else {
                #expect(set.remove(node) == (model.remove(id) != nil), "remove reports whether the child was there")
            }
            #expect(set.count == model.count)
            #expect(set.contains(node) == model.contains(id))
        }
        #expect(Set(set.all.map { ObjectIdentifier($0) }) == model)
        for node in nodes where model.contains(ObjectIdentifier(node)) { set.remove(node) }
        #expect(set.count == 0 && set.all.isEmpty)
    }

    @Test("a fan-out's children leave the tree as they finish, and the set is freed when it empties")
    func childListEmpties() {
        var tree = TreeState(isSettled: true, tracksInterest: false)
        let nodes = (0..<100).map { _ in PromiseCore<Int>(PromiseStateMachine()) }
        for node in nodes { _ = tree.add(child: node, dependent: false) }
        #expect(tree.allChildren.count == 100)
        for node in nodes.reversed() { _ = tree.apply(.childDone(node)) }
        #expect(tree.hasNoChildren && tree.rare?.moreChildren == nil)
        #expect(tree.flags[.done], "a settled promise whose last child finished is done")
    }

    @Test("a set dropped while it holds children releases each of them once, after growing", arguments: [3, 40, 300])
    func droppedSetReleasesChildren(count: Int) {
        final class Probe: PromiseNode, @unchecked Sendable {
            var parentNode: (any PromiseNode)? { nil }
            var isPending: Bool { true }
            var isCancelled: Bool { false }
            var anyOutcome: Outcome<any Sendable>? { nil }
            func cancel(
                reason: (any Error)?, origin: TraceCause?, forwardingInto work: inout [any PromiseNode],
                then effects: inout [() -> Void]
            ) {}
            var traceNode: TraceNode? { nil }
            var traceSite: PromiseSite { PromiseSite() }
            func performTree(_ op: TreeOp) -> TreeStep? { nil }
            func performChildDone(_ child: borrowing any PromiseNode) -> TreeStep? { nil }
            var adopteeUnderAdoptionLock: (any PromiseNode)? { nil }
            func run() {}
            var runsInline: Bool { true }
            func handOver(from source: AnyObject) -> any ExecutionContext { .inline }
            func endsDeliveryWhenRun() {}
            var slotInParent = UInt32.max
            func enterGateIfFree(detaching child: any PromiseNode) -> Bool? { nil }
            func leaveGate() {}
            func attachChildHoldingGate(_ child: any PromiseNode) {}
            func isSettledWithoutChildrenHoldingGate() -> Bool { false }
            func holdsOnlyReferenceToParent() -> Bool { false }
        }
        var watched: [Weak] = []
        do {
            var set = ChildSet()
            for _ in 0..<count {
                let node = Probe()
                watched.append(Weak(node))
                set.insert(node)
            }
            // Some leave again, so the dropped table holds gaps as well as children.
            for entry in watched.prefix(count / 3) { set.remove(entry.object as! Probe) }
            #expect(set.count == count - count / 3)
            #expect(watched.prefix(count / 3).allSatisfy { $0.object == nil }, "a removed child is released")
            #expect(watched.dropFirst(count / 3).allSatisfy { $0.object != nil }, "the set holds the rest")
        }
        #expect(watched.allSatisfy { $0.object == nil }, "dropping the set releases every child it held")
    }

    @Test("a child's slot is only a hint: a child of another set, a child inserted twice, a child that leaves and comes back")
    func staleSlots() {
        let strangers = (0..<20).map { _ in PromiseCore<Int>(PromiseStateMachine()) }
        let children = (0..<20).map { _ in PromiseCore<Int>(PromiseStateMachine()) }
        var elsewhere = ChildSet()
        for node in strangers { elsewhere.insert(node) }
        var set = ChildSet()
        for node in children { set.insert(node) }
        // A stranger's hint (its slot in the other set) points at a slot this set fills with one
        // of its own children: it must not be taken for a child.
        #expect(!set.contains(strangers[15]) && !set.remove(strangers[15]))
        #expect(set.count == 20 && elsewhere.count == 20)
        // Inserted again: still one entry.
        set.insert(children[3])
        #expect(set.count == 20)
        // Removals from the middle move the last child into the hole; every child is still found.
        #expect(set.remove(children[9]) && set.remove(children[5]) && set.remove(children[19]))
        #expect(set.count == 17)
        for (index, node) in children.enumerated() { #expect(set.contains(node) == ![5, 9, 19].contains(index)) }
        // A removed child comes back and is found again.
        set.insert(children[5])
        #expect(set.contains(children[5]) && set.count == 18)
        #expect(Set(set.all.map { ObjectIdentifier($0) }).count == 18)
    }
}

private final class Weak {
    weak var object: AnyObject?
    init(_ object: AnyObject) { self.object = object }
}
