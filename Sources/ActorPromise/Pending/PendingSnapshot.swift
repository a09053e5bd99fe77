/// Every promise that was pending at one moment, where it was made and what it waits on: see
/// ``PromiseDiagnostics/pendingSnapshot()``.
///
/// Its ``description`` is a forest, one line per promise under the promise it waits for; ``dot``
/// is the same graph for Graphviz. Both are bounded: past ``lineLimit`` lines (or nodes) the
/// largest subtrees and the long chains are summarised in a line each.
public struct PendingSnapshot: Sendable, CustomStringConvertible {
    /// How many lines ``description`` holds at most, its head line and summaries included; ``dot``
    /// draws the same rows.
    public static let lineLimit = 300

    /// The promises shown (the library's own bookkeeping promises left out).
    let promises: [PendingPromise]
    /// Every promise the snapshot found, shown or not, so that a promise waiting on one that is
    /// not shown can still name it.
    let all: [PendingPromise]
    /// Where each promise of ``all`` is in it.
    let index: PendingIndex
    /// Per shown promise, the shown promise it hangs under — the first it waits for that is shown —
    /// or -1.
    let under: [Int32]
    /// The rows ``description`` and ``dot`` draw: laid out once, when the snapshot is made.
    private(set) var rows: [PendingForest.Placed] = []
    /// The tables the promises' numbers point into: the names of their value types
    /// (`Promise<Int>`) and of their contexts, their sites, what they wait on besides other
    /// promises, and the inputs of the combinators among them.
    let tables: PendingTables

    /// A snapshot of all the promises found.
    init(all: [PendingPromise], tables: PendingTables) {
        let index = PendingIndex(all)
        self.init(promises: all, all: all, index: index, tables: tables) { index[$0] }
    }

    /// A snapshot that shows `promises`, of `all`; `shownPosition` finds a promise among those
    /// shown.
    private init(
        promises: [PendingPromise], all: [PendingPromise], index: PendingIndex, tables: PendingTables,
        shownPosition: (ObjectIdentifier) -> Int?
    ) {
        self.promises = promises
        self.all = all
        self.index = index
        self.tables = tables
        under = promises.map { promise in
            var target: Int?
            tables.forEachWaitedFor(by: promise) { id in
                target = shownPosition(id)
                return target != nil
            }
            return target.map { Int32($0) } ?? -1
        }
        rows = PendingForest(self, limit: Self.lineLimit - 1).placed
    }

    /// How many pending promises the snapshot holds.
    public var count: Int { promises.count }

    /// The pending promises as a forest of lines: a head line with the count, then each promise
    /// once, under the promise it waits for, with its type, where it was made, how long it has
    /// been pending and what it waits on. Empty of promises, it says so in its one line.
    public var description: String {
        let forest = PendingForest(self, rows: rows)
        let head = count == 1 ? "1 pending promise" : "\(count) pending promises"
        return ([head + (count == 0 ? "" : ":")] + forest.lines).joined(separator: "\n")
    }

    /// The pending promises as a Graphviz graph (render it with `dot -Tsvg`): a node per promise,
    /// labelled with its type, site and age, and an edge to what it waits on — another promise, or
    /// a node for the resolver held by the work, a completion handler, a task, a timer, a lazy
    /// body or a context that has not run the promise's handler yet, each with a shape of its own.
    public var dot: String { PendingForest(self, rows: rows).dot }

    /// The same snapshot, kept to the promises pending for at least `age`.
    ///
    /// - Parameter age: The least time a promise has been pending, to be kept.
    /// - Returns: A snapshot of those promises.
    public func olderThan(_ age: Duration) -> PendingSnapshot { keeping { $0.age >= age } }

    /// The same snapshot, kept to the promises `isIncluded` accepts.
    func keeping(_ isIncluded: (PendingPromise) -> Bool) -> PendingSnapshot {
        let kept = promises.filter(isIncluded)
        var shown = Array(repeating: -1, count: all.count)
        for position in kept.indices { if let found = index[kept[position].id] { shown[found] = position } }
        let index = index
        return PendingSnapshot(promises: kept, all: all, index: index, tables: tables) { id in
            index[id].flatMap { shown[$0] < 0 ? nil : shown[$0] }
        }
    }

    /// The promises a test runtime's thread made, for its reports: `runtime` is its serial number.
    package func made(under runtime: UInt64) -> PendingSnapshot { keeping { $0.runtime == runtime } }

    /// The forest's lines without the head line: one per pending promise, or per summary.
    package var lines: [String] { PendingForest(self, rows: rows).lines }
}

extension PendingSnapshot {
    /// Takes a snapshot of the registry: copies every tracked promise that is pending, then leaves
    /// out the library's own promises.
    static func take() -> PendingSnapshot {
        let now = ContinuousClock.now
        var tables = PendingTables(takenAt: now)
        var followers: [Int] = []
        var promises: [PendingPromise] = []
        promises.reserveCapacity(PendingRegistry.trackedCount)
        PendingRegistry.forEachPending { id, entry, facts, inputs in
            if facts.isFollowing { followers.append(promises.count) }
            let age = entry.madeAt.duration(to: now).components
            promises.append(PendingPromise(
                id: id, parent: facts.parent, adoptee: nil, runtime: entry.runtime,
                nanoseconds: age.seconds * 1_000_000_000 + age.attoseconds / 1_000_000_000,
                site: tables.number(of: entry.site), type: tables.number(ofValueType: entry.valueType),
                context: entry.contextType.map { tables.number(ofContext: $0) } ?? -1,
                wait: tables.number(of: entry.wait), inputs: inputs.map { tables.number(of: $0) } ?? -1,
                parentIsPending: facts.parentIsPending))
        }
        for position in followers { promises[position].adoptee = PendingRegistry.adoptee(of: promises[position].id) }
        return seenThroughLibrarys(promises, tables: tables)
    }

    /// The promises the library made for its own bookkeeping (branches, a combinator's wrappers)
    /// left out, and each edge to one of them led on to the promise it waits for. A combinator's
    /// result, from which the library derives its typed promise at the caller's site, takes that
    /// promise's type.
    private static func seenThroughLibrarys(_ promises: [PendingPromise], tables: PendingTables) -> PendingSnapshot {
        var librarys: [ObjectIdentifier: PendingPromise] = [:]
        for promise in promises where tables.site(promise).isLibrarys { librarys[promise.id] = promise }
        guard !librarys.isEmpty else { return PendingSnapshot(all: promises, tables: tables) }
        var typeOf: [ObjectIdentifier: Int32] = [:]
        for library in librarys.values where library.parentIsPending && tables.site(library).operation == .library {
            if let parent = library.parent { typeOf[parent] = typeOf[parent] ?? library.type }
        }
        func through(_ id: ObjectIdentifier) -> ObjectIdentifier {
            var id = id
            var steps = 0
            while let library = librarys[id], steps < librarys.count {
                var next: ObjectIdentifier?
                tables.forEachWaitedFor(by: library) { next = $0; return true }
                guard let next else { break }
                id = next
                steps += 1
            }
            return id
        }
        var seenTables = tables
        let seen = promises.compactMap { promise -> PendingPromise? in
            let site = tables.site(promise)
            guard !site.isLibrarys else { return nil }
            var seen = promise
            seen.adoptee = promise.adoptee.map(through)
            seen.parent = promise.parent.map(through)
            if promise.inputs >= 0 { seenTables.inputLists[Int(promise.inputs)] = tables.inputLists[Int(promise.inputs)].map(through) }
            switch tables.waits[Int(promise.wait)] {
            case .timeout(let source, let delay, let due):
                seenTables.waits[Int(promise.wait)] = .timeout(source: through(source), delay: delay, due: due)
            case .attempt(let attempt, let number, let attempts):
                seenTables.waits[Int(promise.wait)] = .attempt(through(attempt), number: number, of: attempts)
            case .handOver(let inner):
                seenTables.waits[Int(promise.wait)] = .handOver(through(inner))
            default:
                break
            }
            if let type = typeOf[promise.id], site.operation.isCombinatorInput { seen.type = type }
            return seen
        }
        return PendingSnapshot(all: seen, tables: seenTables)
    }

    /// `Promise<Int> from then, at Poll.swift:12`.
    func header(_ promise: PendingPromise) -> String {
        let site = tables.site(promise)
        let operation = site.operation.isCombinatorInput ? site.operation.combinatorName : site.operationText
        let made = operation.isEmpty || operation == "promise" ? " made" : " from \(operation),"
        return tables.typeNames[Int(promise.type)] + made + " at " + siteText(promise)
    }

    /// `Poll.swift:12`, or "an unrecorded site".
    func siteText(_ promise: PendingPromise) -> String { tables.site(promise).text ?? "an unrecorded site" }

    /// `Promise<Int> made at Poll.swift:12`: how another line names a promise.
    func shortName(_ promise: PendingPromise) -> String {
        "\(tables.typeNames[Int(promise.type)]) made at \(tables.site(promise).text ?? "an unrecorded site")"
    }

    /// The name of the context a derived promise's handler runs on.
    func contextName(_ promise: PendingPromise) -> String? {
        promise.context < 0 ? nil : tables.typeNames[Int(promise.context)]
    }

    /// A combinator's inputs; empty for other promises.
    func inputs(of promise: PendingPromise) -> [ObjectIdentifier] {
        promise.inputs < 0 ? [] : tables.inputLists[Int(promise.inputs)]
    }

    /// What `promise` waits on besides other promises.
    func wait(_ promise: PendingPromise) -> PendingWait { tables.waits[Int(promise.wait)] }

    /// Where `promise` was made.
    func site(_ promise: PendingPromise) -> PromiseSite { tables.site(promise) }

    /// The promises `promise` waits for, nearest first (see ``PendingTables/forEachWaitedFor(by:_:)``).
    func waitsFor(_ promise: PendingPromise) -> [ObjectIdentifier] {
        var found: [ObjectIdentifier] = []
        tables.forEachWaitedFor(by: promise) { found.append($0); return false }
        return found
    }
}

/// One pending promise of a snapshot: plain values and numbers into the snapshot's tables, so
/// that a million of them take 64 bytes each.
struct PendingPromise: Sendable {
    let id: ObjectIdentifier
    var parent: ObjectIdentifier?
    var adoptee: ObjectIdentifier?
    /// The serial number of the test runtime whose thread made it, if one did.
    let runtime: UInt64?
    let nanoseconds: Int64
    /// Where it was made: a number into ``PendingSnapshot/sites``.
    let site: Int32
    /// Its value type's name: a number into ``PendingSnapshot/typeNames``.
    var type: Int32
    /// Where a derived promise's handler runs: the name of the context's type, by number; -1 for
    /// none.
    let context: Int32
    /// What it waits on besides other promises: a number into ``PendingSnapshot/waits``.
    let wait: Int32
    /// A combinator's inputs: a number into ``PendingSnapshot/inputLists``; -1 for none.
    let inputs: Int32
    let parentIsPending: Bool

    /// How long it had been pending when the snapshot was taken.
    var age: Duration { .nanoseconds(nanoseconds) }
}
