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
}
