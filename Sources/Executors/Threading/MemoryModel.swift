#if ACTORPROMISE_INTERLEAVINGS
import Foundation
import Synchronization

/// The interleaving checker's model of memory orderings weaker than sequential consistency.
///
/// In the checker's build every atomic of the library is a ``ModelAtomic`` (each module shadows
/// `Atomic` with it). Each keeps the history of its stores; each thread the checker runs carries a
/// vector clock, joined where the C++/Swift memory model makes one operation happen before
/// another: an acquiring load that reads a releasing store (or a read-modify-write that continues
/// that store's release sequence), the library's locks (a lock taken after it was let go), and
/// the total order of sequentially consistent operations. From that relation the model decides:
///
/// - which stores a load may read: any store at least as new as the newest one that happens
///   before the load and as the newest this thread has read or written there (coherence). The
///   checker explores those choices as it explores schedules, within a budget of stale reads per
///   run (`Scenario.staleReads`); read-modify-writes always read the newest store;
/// - whether a plain (non-atomic) field that the code publishes through an atomic is read or
///   written without the access before it happening before (``modelledAccess(_:_:writes:)``): a
///   data race, reported as the run's failure.
///
/// Operations of threads the checker does not run (a scenario's setup, the final check) see the
/// newest store and count as ordered after everything the checked threads did before them.
package final class MemoryModel: @unchecked Sendable {
    // Safety (`@unchecked Sendable`): every mutable field is read and written with `lock` held.

    /// The model of the process (the checker resets it before each run).
    package static let shared = MemoryModel()

    private let lock = NSLock()
    /// Bumped at every reset: an atomic made in an earlier run forgets its history first.
    private var generation = 0
    /// Each checked thread's vector clock.
    private var clocks: [[Int]] = []
    /// The join of every clock: what an operation of a thread the checker does not run follows.
    private var everything: [Int] = []
    /// The clock carried by the total order of sequentially consistent operations.
    private var sequential: [Int] = []
    /// The clock each lock was let go with.
    private var lockClocks: [ObjectIdentifier: [Int]] = [:]
    /// The plain fields whose accesses are checked.
    private var cells: [CellKey: Cell] = [:]
    /// Where the checker learns of a data race.
    private var reportRace: (@Sendable (String) -> Void)?
    /// Whether loads may read stale stores in this run (else each reads the newest).
    private var explores = false

    private init() {}

    /// Starts a run with `threads` checked threads; `report` hears each data race. Loads read
    /// stale stores only if the run `explores` them.
    package func reset(threads: Int, explores: Bool, report: @escaping @Sendable (String) -> Void) {
        lock.withLock {
            self.explores = explores
            generation += 1
            clocks = Array(repeating: Array(repeating: 0, count: threads), count: threads)
            everything = Array(repeating: 0, count: threads)
            sequential = everything
            lockClocks = [:]
            cells = [:]
            reportRace = report
        }
    }

    // MARK: Threads and clocks (the lock held)

    /// Advances checked thread `thread`'s clock by one event and returns its stamp.
    fileprivate func tick(_ thread: Int) -> Int {
        clocks[thread][thread] += 1
        everything[thread] = clocks[thread][thread]
        return clocks[thread][thread]
    }

    fileprivate func clock(of thread: Int) -> [Int] { clocks[thread] }

    fileprivate func join(_ thread: Int, with other: [Int]) {
        guard other.count == clocks[thread].count else { return }
        clocks[thread] = joined(clocks[thread], other)
    }

    /// Whether event `stamp` of thread `writer` happens before thread `thread`'s next event.
    fileprivate func happensBefore(writer: Int, stamp: Int, thread: Int) -> Bool {
        writer < clocks[thread].count && clocks[thread][writer] >= stamp
    }

    fileprivate var clockOfEverything: [Int] { everything }
    fileprivate var exploresStaleReads: Bool { explores }
    fileprivate var currentGeneration: Int { generation }

    fileprivate func sequentiallyConsistent(_ thread: Int) {
        join(thread, with: sequential)
        sequential = clocks[thread]
    }

    fileprivate func withLock<Result>(_ body: () -> Result) -> Result { lock.withLock(body) }

    // MARK: Locks

    /// A checked thread took `object`'s lock: what happened before its last unlock happens before
    /// what follows.
    package func acquire(_ object: ObjectIdentifier) {
        guard let thread = modelThreadIndex() else { return }
        lock.withLock {
            guard thread < clocks.count else { return }
            _ = tick(thread)
            if let released = lockClocks[object] { join(thread, with: released) }
        }
    }

    /// A checked thread let `object`'s lock go.
    package func release(_ object: ObjectIdentifier) {
        guard let thread = modelThreadIndex() else { return }
        lock.withLock {
            guard thread < clocks.count else { return }
            _ = tick(thread)
            let mine = clocks[thread]
            lockClocks[object] = lockClocks[object].map { joined($0, mine) } ?? mine
        }
    }

    // MARK: Plain fields

    private struct CellKey: Hashable {
        let object: ObjectIdentifier
        let field: UInt
    }

    private struct Cell {
        /// The object the cell belongs to: a new object at a freed one's address starts afresh.
        weak var owner: AnyObject?
        var lastWrite: (thread: Int, stamp: Int)?
        var reads: [(thread: Int, stamp: Int)] = []
    }

    /// Checks an access to plain field `field` of `object` against the accesses before it.
    package func access(_ object: AnyObject, _ field: StaticString, writes: Bool) {
        guard let thread = modelThreadIndex() else { return outsideAccess(object, field, writes: writes) }
        let race: String? = lock.withLock {
            guard thread < clocks.count else { return nil }
            let key = CellKey(object: ObjectIdentifier(object), field: UInt(bitPattern: field.utf8Start))
            var cell = cells[key].flatMap { $0.owner === object ? $0 : nil } ?? Cell(owner: object)
            let stamp = tick(thread)
            var race: String?
            if let write = cell.lastWrite, write.thread != thread,
               !happensBefore(writer: write.thread, stamp: write.stamp, thread: thread) {
                race = "data race: T\(thread) \(writes ? "writes" : "reads") \(field) of \(type(of: object)) "
                    + "unordered with T\(write.thread)'s write"
            }
            if writes {
                for read in cell.reads where read.thread != thread
                    && !happensBefore(writer: read.thread, stamp: read.stamp, thread: thread) {
                    race = race ?? "data race: T\(thread) writes \(field) of \(type(of: object)) unordered with T\(read.thread)'s read"
                }
                cell.lastWrite = (thread, stamp)
                cell.reads = []
            } else {
                cell.reads.removeAll { $0.thread == thread }
                cell.reads.append((thread, stamp))
            }
            cells[key] = cell
            return race
        }
        if let race { lock.withLock { reportRace }?(race) }
    }

    /// An access by a thread the checker does not run: ordered after every access before it.
    private func outsideAccess(_ object: AnyObject, _ field: StaticString, writes: Bool) {
        guard writes else { return }
        lock.withLock {
            let key = CellKey(object: ObjectIdentifier(object), field: UInt(bitPattern: field.utf8Start))
            cells[key] = nil
        }
    }
}

/// The join of two vector clocks (the later of each component); `second` alone if they are of
/// different runs' lengths.
private func joined(_ first: [Int], _ second: [Int]) -> [Int] {
    guard first.count == second.count else { return second }
    return zip(first, second).map { max($0, $1) }
}

/// A store in an atomic's history.
private struct Stored<Value> {
    let value: Value
    /// Its place in the atomic's modification order.
    let sequence: Int
    /// The thread that wrote it and that thread's stamp (`nil`: a thread the checker does not run,
    /// whose store every checked thread's later operations follow).
    let writer: (thread: Int, stamp: Int)?
    /// What an acquiring load that reads it joins: the writer's clock for a releasing store, and
    /// the release sequence it continues for a read-modify-write.
    let released: [Int]?
}

/// An atomic with the API of `Synchronization.Atomic` whose operations the ``MemoryModel``
/// orders: the library's atomics in the interleaving checker's build.
@usableFromInline
package final class ModelAtomic<Value: AtomicRepresentable>: @unchecked Sendable {
    // Safety (`@unchecked Sendable`): every field is read and written with the model's lock held.

    /// Stores kept: older ones are never read by the scenarios' short runs.
    private static var historyLimit: Int { 8 }
    private var history: [Stored<Value>]
    private var generation: Int
    /// The newest store (its sequence) each checked thread has read or written: it never reads an
    /// older one (coherence).
    private var seen: [Int: Int] = [:]

    @usableFromInline
    package init(_ value: Value) {
        let model = MemoryModel.shared
        let thread = modelThreadIndex()
        (history, generation) = model.withLock {
            let generation = model.currentGeneration
            guard let thread else {
                return ([Stored(value: value, sequence: 0, writer: nil, released: model.clockOfEverything)], generation)
            }
            let stamp = model.tick(thread)
            return ([Stored(value: value, sequence: 0, writer: (thread, stamp), released: model.clock(of: thread))], generation)
        }
        if let thread { seen[thread] = 0 }
    }

    // MARK: The model's steps (its lock held)

    /// Forgets what an earlier run left: the newest store becomes the only one, seen by all.
    private func catchUp(_ model: MemoryModel) {
        guard generation != model.currentGeneration else { return }
        generation = model.currentGeneration
        let newest = history[history.count - 1]
        history = [Stored(value: newest.value, sequence: newest.sequence, writer: nil, released: model.clockOfEverything)]
        seen = [:]
    }

    /// The stores thread `thread` may read, in modification order (the newest last).
    private func readable(by thread: Int, _ model: MemoryModel) -> ArraySlice<Stored<Value>> {
        var oldest = history.startIndex
        let floor = seen[thread] ?? -1
        for index in history.indices.reversed() {
            let store = history[index]
            let ordered = store.writer.map { model.happensBefore(writer: $0.thread, stamp: $0.stamp, thread: thread) } ?? true
            if ordered || store.sequence <= floor {
                oldest = index
                break
            }
        }
        return history[oldest...]
    }

    private func append(_ value: Value, thread: Int?, released: [Int]?, _ model: MemoryModel) {
        let sequence = history[history.count - 1].sequence + 1
        guard let thread else {
            history = [Stored(value: value, sequence: sequence, writer: nil, released: model.clockOfEverything)]
            seen = [:]
            return
        }
        let stamp = model.tick(thread)
        history.append(Stored(value: value, sequence: sequence, writer: (thread, stamp), released: released))
        if history.count > Self.historyLimit { history.removeFirst(history.count - Self.historyLimit) }
        seen[thread] = sequence
    }

    private func acquire(_ store: Stored<Value>, thread: Int, _ model: MemoryModel) {
        if let released = store.released { model.join(thread, with: released) }
    }

    /// A read-modify-write: reads the newest store, then appends `update`'s value.
    private func readModifyWrite(
        acquires: Bool, releases: Bool, sequentially: Bool, _ update: (Value) -> Value?
    ) -> Value {
        let model = MemoryModel.shared
        let thread = modelThreadIndex()
        return model.withLock {
            catchUp(model)
            let newest = history[history.count - 1]
            guard let thread else {
                if let value = update(newest.value) { append(value, thread: nil, released: nil, model) }
                return newest.value
            }
            _ = model.tick(thread)
            if acquires || sequentially { acquire(newest, thread: thread, model) }
            if sequentially { model.sequentiallyConsistent(thread) }
            seen[thread] = newest.sequence
            guard let value = update(newest.value) else { return newest.value }
            // A read-modify-write continues the release sequence of the store it read.
            var released = newest.released
            if releases || sequentially {
                let mine = model.clock(of: thread)
                released = released.map { joined($0, mine) } ?? mine
            }
            append(value, thread: thread, released: released, model)
            return newest.value
        }
    }

    // MARK: The API of `Atomic`

    @usableFromInline
    package func load(ordering: AtomicLoadOrdering) -> Value {
        let model = MemoryModel.shared
        guard let thread = modelThreadIndex() else {
            return model.withLock {
                catchUp(model)
                return history[history.count - 1].value
            }
        }
        let sequentially = ordering == .sequentiallyConsistent
        let options = model.withLock {
            catchUp(model)
            _ = model.tick(thread)
            return sequentially || !model.exploresStaleReads ? 1 : readable(by: thread, model).count
        }
        // Position 0 is the newest store; each older one is a stale read the checker chooses.
        let chosen = options > 1 ? modelChooseRead(options) : 0
        return model.withLock {
            let candidates = options == 1 ? history[(history.count - 1)...] : readable(by: thread, model)
            let store = candidates[candidates.endIndex - 1 - min(chosen, candidates.count - 1)]
            if ordering != .relaxed { acquire(store, thread: thread, model) }
            if sequentially { model.sequentiallyConsistent(thread) }
            seen[thread] = max(seen[thread] ?? -1, store.sequence)
            return store.value
        }
    }

    @usableFromInline
    package func store(_ value: Value, ordering: AtomicStoreOrdering) {
        let model = MemoryModel.shared
        let thread = modelThreadIndex()
        model.withLock {
            catchUp(model)
            guard let thread else { return append(value, thread: nil, released: nil, model) }
            let sequentially = ordering == .sequentiallyConsistent
            _ = model.tick(thread)
            if sequentially { model.sequentiallyConsistent(thread) }
            let released = ordering == .relaxed ? nil : model.clock(of: thread)
            append(value, thread: thread, released: released, model)
        }
    }

    @usableFromInline
    package func exchange(_ value: Value, ordering: AtomicUpdateOrdering) -> Value {
        readModifyWrite(ordering: ordering) { _ in value }
    }

    fileprivate func readModifyWrite(ordering: AtomicUpdateOrdering, _ update: (Value) -> Value?) -> Value {
        readModifyWrite(
            acquires: ordering == .acquiring || ordering == .acquiringAndReleasing,
            releases: ordering == .releasing || ordering == .acquiringAndReleasing,
            sequentially: ordering == .sequentiallyConsistent, update)
    }
}

extension ModelAtomic where Value: Equatable {
    @usableFromInline
    package func compareExchange(
        expected: Value, desired: Value, ordering: AtomicUpdateOrdering
    ) -> (exchanged: Bool, original: Value) {
        var exchanged = false
        let original = readModifyWrite(ordering: ordering) { current in
            exchanged = current == expected
            return exchanged ? desired : nil
        }
        return (exchanged, original)
    }

    @usableFromInline
    package func compareExchange(
        expected: Value, desired: Value, successOrdering: AtomicUpdateOrdering, failureOrdering: AtomicLoadOrdering
    ) -> (exchanged: Bool, original: Value) {
        compareExchange(expected: expected, desired: desired, ordering: successOrdering)
    }
}

extension ModelAtomic where Value: FixedWidthInteger {
    @usableFromInline @discardableResult
    package func wrappingAdd(_ operand: Value, ordering: AtomicUpdateOrdering) -> (oldValue: Value, newValue: Value) {
        let old = readModifyWrite(ordering: ordering) { $0 &+ operand }
        return (old, old &+ operand)
    }

    @usableFromInline @discardableResult
    package func wrappingSubtract(_ operand: Value, ordering: AtomicUpdateOrdering) -> (oldValue: Value, newValue: Value) {
        let old = readModifyWrite(ordering: ordering) { $0 &- operand }
        return (old, old &- operand)
    }

    @usableFromInline @discardableResult
    package func add(_ operand: Value, ordering: AtomicUpdateOrdering) -> (oldValue: Value, newValue: Value) {
        wrappingAdd(operand, ordering: ordering)
    }

    @usableFromInline @discardableResult
    package func subtract(_ operand: Value, ordering: AtomicUpdateOrdering) -> (oldValue: Value, newValue: Value) {
        wrappingSubtract(operand, ordering: ordering)
    }
}

/// `Atomic` in this module's checking build: the model's (see ``MemoryModel``). Package-wide, so
/// that package declarations may use it; a module that imports this one and means the standard
/// one says so with a type alias of its own.
@usableFromInline
package typealias Atomic<Value: AtomicRepresentable> = ModelAtomic<Value>

@usableFromInline
package func reachModelledAccess(_ object: AnyObject, _ field: StaticString, writes: Bool) {
    MemoryModel.shared.access(object, field, writes: writes)
}
#endif

/// Checks an access to plain field `field` of `object` that another thread's access is ordered
/// with only through the library's atomics and locks (nothing outside the checker's build).
@inlinable @inline(__always)
package func modelledAccess(_ object: AnyObject, _ field: StaticString, writes: Bool) {
    #if ACTORPROMISE_INTERLEAVINGS
    reachModelledAccess(object, field, writes: writes)
    #endif
}
