import Testing
@testable import ActorPromise

/// The set that holds a promise's children beyond the first, against `Set` as a model.
@Suite("Child set")
struct ChildSetTests {
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
                set.remove(id)
                model.remove(id)
            }
            #expect(set.count == model.count)
        }
        #expect(Set(set.all.map { ObjectIdentifier($0) }) == model)
        for id in model { set.remove(id) }
        #expect(set.count == 0 && set.all.isEmpty)
    }

    @Test("a fan-out's children leave the tree as they finish, and the set is freed when it empties")
    func childListEmpties() {
        var tree = TreeState(isSettled: true, tracksInterest: false)
        let nodes = (0..<100).map { _ in PromiseCore<Int>(PromiseStateMachine()) }
        for node in nodes { _ = tree.add(child: node, dependent: false) }
        #expect(tree.allChildren.count == 100)
        for node in nodes.reversed() { _ = tree.apply(.childDone(ObjectIdentifier(node))) }
        #expect(tree.hasNoChildren && tree.rare?.moreChildren == nil)
        #expect(tree.isDone, "a settled promise whose last child finished is done")
    }

    @Test("a set dropped while it holds children releases each of them once, after growing", arguments: [3, 40, 300])
    func droppedSetReleasesChildren(count: Int) {
        final class Probe: PromiseNode, @unchecked Sendable {
            var parentNode: (any PromiseNode)? { nil }
            var isPending: Bool { true }
            var isCancelled: Bool { false }
            var anyOutcome: Outcome<any Sendable>? { nil }
            func cancel(reason: (any Error)?, forwardingInto work: inout [any PromiseNode], then effects: inout [() -> Void]) {}
            func performTree(_ op: TreeOp) -> TreeStep? { nil }
            var adopteeUnderAdoptionLock: (any PromiseNode)? { nil }
            func run() {}
            var runsInline: Bool { true }
            func handOver(from source: AnyObject) -> any ExecutionContext { .inline }
            func endsDeliveryWhenRun() {}
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
            for entry in watched.prefix(count / 3) { set.remove(ObjectIdentifier(entry.object!)) }
            #expect(set.count == count - count / 3)
            #expect(watched.prefix(count / 3).allSatisfy { $0.object == nil }, "a removed child is released")
            #expect(watched.dropFirst(count / 3).allSatisfy { $0.object != nil }, "the set holds the rest")
        }
        #expect(watched.allSatisfy { $0.object == nil }, "dropping the set releases every child it held")
    }
}

private final class Weak {
    weak var object: AnyObject?
    init(_ object: AnyObject) { self.object = object }
}
