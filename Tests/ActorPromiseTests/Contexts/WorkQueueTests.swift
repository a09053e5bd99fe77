import Testing
import ActorPromiseTesting
@testable import ActorPromiseExecutors

/// The ring-buffer FIFO every context queues its work in, against an array as a model.
@Suite("Work queue")
struct WorkQueueTests {
    /// The abandonments these tests provoke are recorded, not printed as warnings.
    init() { AbandonmentLog.install() }

    final class Item: WorkItem, @unchecked Sendable {
        let number: Int
        init(_ number: Int) {
            self.number = number
            super.init()
        }
    }

    @Test("appends, pops and removals anywhere keep FIFO order and the count", arguments: [1, 2, 3])
    func matchesModel(seed: UInt64) {
        var random = SplitMix64(state: seed)
        var queue = WorkQueue()
        var model: [Item] = []
        for step in 0..<4_000 {
            switch Int.random(in: 0..<4, using: &random) {
            case 0, 1:
                let item = Item(step)
                queue.append(item)
                model.append(item)
            case 2:
                let popped = queue.popFirst() as? Item
                #expect(popped === model.first)
                if !model.isEmpty { model.removeFirst() }
            default:
                // Removing the last item is the case that must move the tail back.
                guard !model.isEmpty else { continue }
                let index = Bool.random(using: &random) ? model.count - 1 : Int.random(in: 0..<model.count, using: &random)
                let removed = queue.remove(model[index])
                #expect(removed)
                model.remove(at: index)
            }
            #expect(queue.count == model.count && queue.isEmpty == model.isEmpty)
        }
        var drained: [Int] = []
        while let item = queue.popFirst() as? Item { drained.append(item.number) }
        #expect(drained == model.map(\.number))
    }

    @Test("a removed or popped item is released by the queue; a dropped queue releases the rest")
    func releasesItems() {
        weak var popped: Item?
        weak var removedTail: Item?
        weak var left: Item?
        do {
            var queue = WorkQueue()
            do {
                let first = Item(1), second = Item(2), third = Item(3)
                popped = first
                left = second
                removedTail = third
                queue.append(first)
                queue.append(second)
                queue.append(third)
                let removed = queue.remove(third)
                #expect(removed)
                _ = queue.popFirst()
            }
            #expect(popped == nil && removedTail == nil, "the queue no longer holds them")
            #expect(left != nil, "the queue holds what is still queued")
            // The tail moved back to `second`: appending after it must still work.
            let fourth = Item(4)
            queue.append(fourth)
            let second = queue.popFirst() as? Item, fourthAgain = queue.popFirst() as? Item
            #expect(second?.number == 2 && fourthAgain === fourth)
            queue.append(Item(5))
        }
        #expect(left == nil)
    }

    @Test("sift keeps the items handed back, in order and in place, and gives the rest to the sieve", arguments: [0, 5, 13])
    func sift(rotation: Int) {
        var queue = WorkQueue()
        // Pops first, so that the items wrap around the end of the ring.
        for step in 0..<rotation { queue.append(Item(-step)) }
        for _ in 0..<rotation { _ = queue.popFirst() }
        let items = (0..<12).map(Item.init)
        for item in items { queue.append(item) }
        var taken: [Int] = []
        queue.sift { item in
            let number = (item as! Item).number
            if number % 3 == 0 { return item }
            taken.append(number)
            return nil
        }
        #expect(taken == [1, 2, 4, 5, 7, 8, 10, 11])
        #expect(queue.count == 4)
        queue.append(Item(12))
        var left: [Int] = []
        while let item = queue.popFirst() as? Item { left.append(item.number) }
        #expect(left == [0, 3, 6, 9, 12])
    }
}
