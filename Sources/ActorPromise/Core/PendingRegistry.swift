import ActorPromiseExecutors
import Synchronization

// Every pending promise of the process, for `PromiseDiagnostics.pendingSnapshot()`: where it was
// made, when, and what it waits on. A promise registers when it is made pending and leaves as the
// first step of its `deinit`; a snapshot filters out the settled ones.

/// Whether promises made from now on are tracked: on by default in debug builds, off in release
/// builds (see ``PromiseDiagnostics/tracksPending``).
@usableFromInline
let pendingSwitch = Atomic<Bool>(tracksPendingByDefault)

#if DEBUG
@usableFromInline let tracksPendingByDefault = true
#else
@usableFromInline let tracksPendingByDefault = false
#endif

/// What the registry keeps of a tracked promise: plain values only (a snapshot copies a million
/// of them), so a combinator's inputs sit in their table's side list.
@usableFromInline
struct PendingEntry: Sendable {
    /// Valid while the entry is in the registry: the promise removes it, under its shard's lock,
    /// before its `deinit` touches anything else.
    let node: UnretainedNode
    let id: ObjectIdentifier
    let site: PromiseSite
    let madeAt: ContinuousClock.Instant
    let valueType: any Any.Type
    /// Where a derived promise's handler runs.
    let contextType: (any Any.Type)?
    var wait: PendingWait
    /// The serial number of the test runtime whose thread made the promise, if one did.
    let runtime: UInt64?
}

/// What a tracked promise waits on besides its parent and the promise it follows: said when it is
/// made, and by the code that hands its resolver to work (a completion handler, a task, a timer).
/// Plain values only; a combinator's inputs are noted beside it (``PendingRegistry/note(_:_:inputs:)``).
@usableFromInline
enum PendingWait: Sendable {
    /// Its resolver, held by the work.
    case resolver
    /// A lazy body that runs when someone first observes the promise.
    case lazyBody
    /// A completion handler handed to work, not yet called.
    case completionHandler
    /// A task running its async body.
    case task
    /// A combinator's inputs.
    case inputs
    /// A timer of `delay`, due then on the system clock (`nil` on another scheduler).
    case timer(delay: Duration, due: ContinuousClock.Instant?)
    /// `source`, or a timer of `delay` that rejects the promise first (`timeout`), due then.
    case timeout(source: ObjectIdentifier, delay: Duration, due: ContinuousClock.Instant?)
    /// Another promise whose outcome is handed over to this one (a test runtime's hand-over).
    case handOver(ObjectIdentifier)
    /// A retry's attempt `number` (of `attempts`, when known).
    case attempt(ObjectIdentifier, number: Int, of: Int?)
    /// A retry's back-off timer of `delay`, due then, before attempt `nextAttempt`.
    case backOff(delay: Duration, due: ContinuousClock.Instant?, nextAttempt: Int)
}

/// What a pending promise's own fields say, read without its gate.
@usableFromInline
struct PendingFacts: Sendable {
    var parent: ObjectIdentifier?
    var parentIsPending = false
    var isFollowing = false
}

/// The entries of one shard: slots, so that a snapshot walks them a few at a time, and where each
/// promise's slot is; the inputs of the combinators among them.
struct PendingTable: Sendable {
    var slots: [PendingEntry?] = []
    var free: [Int] = []
    var slotOf: [ObjectIdentifier: Int] = [:]
    var inputs: [ObjectIdentifier: [ObjectIdentifier]] = [:]

    mutating func insert(_ entry: PendingEntry, for id: ObjectIdentifier) {
        let slot = free.popLast() ?? slots.endIndex
        if slot == slots.endIndex { slots.append(entry) } else { slots[slot] = entry }
        slotOf[id] = slot
    }

    mutating func remove(_ id: ObjectIdentifier) {
        guard let slot = slotOf.removeValue(forKey: id) else { return }
        if case .inputs? = slots[slot]?.wait { inputs[id] = nil }
        slots[slot] = nil
        free.append(slot)
    }
}

/// The process's tracked promises, in shards chosen by the megabyte of memory a promise sits in:
/// promises made and released on different threads (which allocate from different regions) rarely
/// meet on one lock, and a shard's slots hold the promises of a region about in the order they
/// were made, so that a snapshot reads a chain's links one after another.
@usableFromInline
enum PendingRegistry {
    static let shards: [LockedState<PendingTable>] = (0 ..< 64).map { _ in LockedState(PendingTable()) }

    /// How many slots a snapshot copies per hold of a shard's lock.
    static let copyBatch = 64

    static func shard(_ id: ObjectIdentifier) -> LockedState<PendingTable> {
        let address = UInt(bitPattern: id)
        return shards[Int(truncatingIfNeeded: address >> 20) & (shards.count - 1)]
    }

    /// Whether promises made now are tracked: one relaxed load.
    @inlinable @inline(__always)
    static var isOn: Bool { pendingSwitch.load(ordering: .relaxed) }

    static func register(
        _ node: UnretainedNode, id: ObjectIdentifier, site: PromiseSite, valueType: any Any.Type,
        contextType: (any Any.Type)?, wait: PendingWait
    ) {
        let runtime = ThreadState.withCurrent { $0.activeInterceptor }?.serialNumber
        let entry = PendingEntry(
            node: node, id: id, site: site, madeAt: .now, valueType: valueType, contextType: contextType,
            wait: wait, runtime: runtime)
        shard(id).withLockUnscheduled { $0.insert(entry, for: id) }
    }

    static func remove(_ id: ObjectIdentifier) {
        shard(id).withLockUnscheduled { $0.remove(id) }
    }

    /// Says what a tracked promise waits on now (its work started, a timer was set), with a
    /// combinator's `inputs`.
    @usableFromInline
    static func note(_ id: ObjectIdentifier, _ wait: PendingWait, inputs: [ObjectIdentifier]?) {
        shard(id).withLockUnscheduled { table in
            guard let slot = table.slotOf[id] else { return }
            table.slots[slot]?.wait = wait
            if let inputs { table.inputs[id] = inputs }
        }
    }

    /// How many promises are tracked, pending or not.
    static var trackedCount: Int { shards.reduce(0) { count, shard in count + shard.withLockUnscheduled { $0.slotOf.count } } }

    /// Calls `visit` with every tracked promise that is pending, its entry, what its fields say and
    /// a combinator's inputs, a batch of slots per hold of a shard's lock (so `visit` must be quick and take no
    /// lock). A promise made or released meanwhile may be missed or seen; none is kept alive.
    static func forEachPending(_ visit: (ObjectIdentifier, PendingEntry, PendingFacts, [ObjectIdentifier]?) -> Void) {
        for shard in shards {
            var start = 0
            while true {
                let more = shard.withLockUnscheduled { table -> Bool in
                    let end = min(start + copyBatch, table.slots.endIndex)
                    for slot in start ..< max(start, end) {
                        guard let entry = table.slots[slot], let facts = entry.node.pendingFacts else { continue }
                        let id = entry.id
                        let inputs = if case .inputs = entry.wait { table.inputs[id] ?? [] } else { [ObjectIdentifier]?.none }
                        visit(id, entry, facts, inputs)
                    }
                    start = end
                    return end < table.slots.endIndex
                }
                if !more { break }
            }
        }
    }

    /// The promise that `id`, a tracked promise, follows: read under the adoption lock, which
    /// every write of it holds; that lock comes first, as in a `deinit` that runs under it.
    static func adoptee(of id: ObjectIdentifier) -> ObjectIdentifier? {
        adoptionLock.withLockUnscheduled {
            shard(id).withLockUnscheduled { table -> ObjectIdentifier? in
                guard let slot = table.slotOf[id], let entry = table.slots[slot] else { return nil }
                return entry.node.adopteeUnderAdoptionLock
            }
        }
    }
}
