/// A snapshot's promises laid out as a forest, each under the promise it waits for, within a
/// number of rows: the text of ``PendingSnapshot/description`` and the graph of
/// ``PendingSnapshot/dot`` are both drawn from these rows, so that they show the same promises.
struct PendingForest {
    /// One row: a promise, or a line that stands for promises left out.
    enum Row {
        case promise(Int)
        case summary(String)
    }

    /// How rows hang together: each row's parent row, and the text's indentation.
    struct Placed {
        let row: Row
        let parent: Int?
        let prefix: String
    }

    let snapshot: PendingSnapshot
    private(set) var placed: [Placed] = []
    private var remaining: Int
    /// The promises hanging under each: `kidList[kidStart[node] ..< kidStart[node + 1]]`.
    private var kidStart: [Int]
    private var kidList: [Int]
    /// Per promise, how many promises its subtree holds, and how many rows it takes drawn whole.
    private var size: [Int]
    private var rows: [Int]

    /// Chains longer than this many links show their first and last link and a line between.
    static let chainLimit = 4
    /// Trees deeper than this are summarised below it.
    static let depthLimit = 24

    /// The rows a snapshot laid out already, to draw.
    init(_ snapshot: PendingSnapshot, rows laidOut: [Placed]) {
        self.snapshot = snapshot
        placed = laidOut
        remaining = 0
        kidStart = []
        kidList = []
        size = []
        rows = []
    }

    /// Lays out `snapshot`'s promises in at most `limit` rows.
    init(_ snapshot: PendingSnapshot, limit: Int) {
        self.snapshot = snapshot
        remaining = max(limit, 1)
        let promises = snapshot.promises
        let count = promises.count
        var under: [Int?] = snapshot.under.map { $0 < 0 ? nil : Int($0) }
        // Roots: promises that wait for no shown promise.
        var roots = promises.indices.filter { under[$0] == nil }
        (kidStart, kidList) = Self.kids(under)
        size = Array(repeating: 1, count: count)
        rows = Array(repeating: 1, count: count)
        // A depth-first order from the roots, so that a chain's links come one after another; a
        // promise no root reaches (a cycle of waits, which the library's rules prevent) is made a
        // root when found.
        var order: [Int] = []
        order.reserveCapacity(count)
        var seen = Array(repeating: false, count: count)
        var stack = Array(roots.reversed())
        var stray = 0
        var strays = false
        while order.count < count {
            if stack.isEmpty {
                while seen[stray] { stray += 1 }
                strays = true
                under[stray] = nil
                roots.append(stray)
                stack.append(stray)
            }
            let node = stack.removeLast()
            guard !seen[node] else { continue }
            seen[node] = true
            order.append(node)
            for kid in kids(node).reversed() where !seen[kid] { stack.append(kid) }
        }
        if strays { (kidStart, kidList) = Self.kids(under) }
        // Sizes and rows from the leaves up. A long chain of single links takes four rows, whatever
        // its length (see `place`).
        var chainLength = Array(repeating: 0, count: count)
        var chainEnd = Array(0 ..< count)
        for node in order.reversed() {
            if let parent = under[node] { size[parent] += size[node] }
            let nodeKids = kids(node)
            if nodeKids.count == 1 {
                let kid = nodeKids[nodeKids.startIndex]
                chainLength[node] = chainLength[kid] + 1
                chainEnd[node] = chainEnd[kid]
                rows[node] = chainLength[node] > Self.chainLimit
                    ? 4 + kids(chainEnd[node]).reduce(0) { $0 + rows[$1] } : 1 + rows[kid]
            } else {
                rows[node] = 1 + nodeKids.reduce(0) { $0 + rows[$1] }
            }
        }
        placeGroup(roots, parent: nil, prefix: nil, depth: 0)
    }

    /// The promises hanging under `node`.
    private func kids(_ node: Int) -> ArraySlice<Int> { kidList[kidStart[node] ..< kidStart[node + 1]] }

    /// The lists of promises hanging under each, in one array, in the snapshot's order.
    private static func kids(_ under: [Int?]) -> (start: [Int], list: [Int]) {
        var start = Array(repeating: 0, count: under.count + 1)
        for parent in under { if let parent { start[parent + 1] += 1 } }
        for node in under.indices { start[node + 1] += start[node] }
        var list = Array(repeating: 0, count: start[under.count])
        var filled = start
        for (node, parent) in under.enumerated() {
            guard let parent else { continue }
            list[filled[parent]] = node
            filled[parent] += 1
        }
        return (start, list)
    }

    // MARK: Layout

    /// Places a group of siblings: each whole if all fit; otherwise the ones with the fewest rows
    /// whole and, for the others, the largest, their first line and a line that counts the rest —
    /// and when even that runs out of room, one line for the siblings left.
    private mutating func placeGroup(_ group: [Int], parent: Int?, prefix: String?, depth: Int) {
        guard !group.isEmpty else { return }
        let group = group.sorted { snapshot.promises[$0].age > snapshot.promises[$1].age }
        var whole = Set(group)
        if group.reduce(0, { $0 + rows[$1] }) > remaining {
            whole = []
            var budget = remaining - 2 * group.count
            for member in group.sorted(by: { rows[$0] < rows[$1] }) where rows[member] - 2 <= budget {
                whole.insert(member)
                budget -= rows[member] - 2
            }
        }
        for (position, member) in group.enumerated() {
            let isLast = position == group.count - 1
            // A member that is not the last leaves a row for the line that counts the rest.
            let spare = isLast ? 0 : 1
            let fits = whole.contains(member) ? rows[member] + spare <= remaining : 2 + spare <= remaining
            guard fits || (isLast && remaining >= rows[member]) else {
                guard remaining > 0 else { return }
                let rest = group[position...]
                let total = rest.reduce(0) { $0 + size[$1] }
                append(.summary("… \(Self.count(total)) more pending promises in \(Self.count(rest.count)) "
                    + (rest.count == 1 ? "tree" : "trees")), parent: parent, prefix: prefix, isLast: true)
                return
            }
            if whole.contains(member) || rows[member] <= 2 {
                place(member, parent: parent, prefix: prefix, isLast: isLast, depth: depth)
            } else {
                let head = append(.promise(member), parent: parent, prefix: prefix, isLast: isLast)
                append(.summary("… \(Self.count(size[member] - 1)) more pending promises wait on it"),
                       parent: head, prefix: Self.kidPrefix(prefix, isLast: isLast), isLast: true)
            }
        }
    }

    /// Places a promise and what hangs under it.
    private mutating func place(_ node: Int, parent: Int?, prefix: String?, isLast: Bool, depth: Int) {
        var row = append(.promise(node), parent: parent, prefix: prefix, isLast: isLast)
        var kidPrefix = Self.kidPrefix(prefix, isLast: isLast)
        var current = node
        var depth = depth
        // A long chain of single links (a recursion): its first link, a line for the middle, and
        // its last link, under which the rest hangs.
        var chain: [Int] = []
        var link = node
        while kids(link).count == 1, chain.count <= size[node] {
            link = kids(link).first!
            chain.append(link)
        }
        if chain.count > Self.chainLimit, remaining >= 3 {
            row = append(.promise(chain[0]), parent: row, prefix: kidPrefix, isLast: true)
            kidPrefix = Self.kidPrefix(kidPrefix, isLast: true)
            let middle = chain[1 ..< chain.count - 1]
            row = append(.summary("… \(Self.count(middle.count)) more links of this chain, made at "
                + Self.sites(of: middle.map { snapshot.site(snapshot.promises[$0]) })), parent: row, prefix: kidPrefix, isLast: true)
            kidPrefix = Self.kidPrefix(kidPrefix, isLast: true)
            row = append(.promise(chain[chain.count - 1]), parent: row, prefix: kidPrefix, isLast: true)
            kidPrefix = Self.kidPrefix(kidPrefix, isLast: true)
            current = chain[chain.count - 1]
            depth += 3
        }
        guard !kids(current).isEmpty, remaining > 0 else { return }
        if depth >= Self.depthLimit {
            let below = size[current] - 1
            append(.summary("… \(Self.count(below)) more pending promises below"), parent: row, prefix: kidPrefix, isLast: true)
            return
        }
        placeGroup(Array(kids(current)), parent: row, prefix: kidPrefix, depth: depth + 1)
    }

    @discardableResult
    private mutating func append(_ row: Row, parent: Int?, prefix: String?, isLast: Bool) -> Int {
        let line = prefix.map { $0 + (isLast ? "└─ " : "├─ ") } ?? ""
        placed.append(Placed(row: row, parent: parent, prefix: line))
        remaining -= 1
        return placed.count - 1
    }

    private static func kidPrefix(_ prefix: String?, isLast: Bool) -> String {
        guard let prefix else { return "" }
        return prefix + (isLast ? "   " : "│  ")
    }

    // MARK: Text

    /// One line per row.
    var lines: [String] {
        placed.map { placed in
            switch placed.row {
            case .promise(let node): placed.prefix + line(node, under: placed.parent)
            case .summary(let text): placed.prefix + text
            }
        }
    }

    /// `Promise<Int> from then, at Poll.swift:12, pending 2.1 s — waits for its parent`.
    private func line(_ node: Int, under parentRow: Int?) -> String {
        let promise = snapshot.promises[node]
        return snapshot.header(promise) + ", pending " + Self.age(promise.age) + " — " + waits(node, shownAbove: shownAbove(parentRow))
    }

    /// The promise of the row a row hangs under, if that row is a promise.
    private func shownAbove(_ parentRow: Int?) -> ObjectIdentifier? {
        guard let parentRow, case .promise(let node) = placed[parentRow].row else { return nil }
        return snapshot.promises[node].id
    }

    /// What a promise waits on, in words.
    func waits(_ node: Int, shownAbove above: ObjectIdentifier?) -> String {
        let promise = snapshot.promises[node]
        let name = { (id: ObjectIdentifier) in
            id == above ? "the promise above" : self.name(of: id) ?? "a promise that is not tracked"
        }
        if let adoptee = promise.adoptee { return "follows " + name(adoptee) }
        if let parent = promise.parent {
            if promise.parentIsPending {
                return parent == above ? "waits for its parent" : "waits for its parent, " + name(parent)
            }
            return "waits for its handler, queued or running on " + (snapshot.contextName(promise) ?? "its context")
        }
        switch snapshot.wait(promise) {
        case .resolver:
            return "waits for its resolver (held by the work)"
        case .lazyBody:
            return "waits for its lazy body, which runs when someone observes the promise (nobody has)"
        case .completionHandler:
            return "waits for its completion handler (not yet called)"
        case .task:
            return "waits for its task (running)"
        case .timer(let delay, let due):
            return "waits for its timer (" + Self.timer(delay, due: due, at: snapshot.tables.takenAt) + ")"
        case .timeout(let source, let delay, let due):
            return "waits for " + name(source) + ", or its timeout (" + Self.timer(delay, due: due, at: snapshot.tables.takenAt) + ")"
        case .inputs:
            let inputs = snapshot.inputs(of: promise)
            let pending = inputs.filter { isPending($0) }
            let listed = pending.map(name)
            return "waits for \(pending.count) of \(inputs.count) inputs" + (listed.isEmpty ? "" : ": " + listed.joined(separator: "; "))
        case .handOver(let inner):
            return "settles as " + name(inner) + " does (a test runtime's hand-over)"
        case .attempt(let attempt, let number, let attempts):
            return "waits for attempt \(number)" + (attempts.map { " of \($0)" } ?? "") + ", " + name(attempt)
        case .backOff(let delay, let due, let next):
            return "waits out its back-off before attempt \(next) (" + Self.timer(delay, due: due, at: snapshot.tables.takenAt) + ")"
        }
    }

    /// How another line names a pending promise the snapshot found; `nil` for one it did not.
    func name(of id: ObjectIdentifier) -> String? {
        snapshot.index[id].map { snapshot.shortName(snapshot.all[$0]) }
    }

    /// Whether the snapshot found `id` pending.
    func isPending(_ id: ObjectIdentifier) -> Bool { snapshot.index[id] != nil }

    // MARK: Words

    /// `2.1 s`, `340 ms`.
    static func age(_ age: Duration) -> String {
        let seconds = Double(age.components.seconds) + Double(age.components.attoseconds) / 1e18
        if seconds >= 10 { return "\(Int(seconds.rounded())) s" }
        if seconds >= 1 { return "\((seconds * 10).rounded() / 10) s" }
        return "\(Int((seconds * 1000).rounded())) ms"
    }

    /// `5.0 s, due in 2.9 s`; on another scheduler, its delay alone.
    static func timer(_ delay: Duration, due: ContinuousClock.Instant?, at now: ContinuousClock.Instant) -> String {
        guard let due else { return age(delay) + " on its scheduler's clock" }
        let left = now.duration(to: due)
        return left > .zero ? age(delay) + ", due in " + Self.age(left) : age(delay) + ", due " + Self.age(.zero - left) + " ago"
    }

    /// `99,970`.
    static func count(_ count: Int) -> String {
        let digits = String(count)
        var grouped = ""
        for (position, digit) in digits.enumerated() {
            if position > 0, (digits.count - position) % 3 == 0 { grouped.append(",") }
            grouped.append(digit)
        }
        return grouped
    }

    /// The sites of a chain's links, most frequent first: `Poll.swift:12 and Poll.swift:13`.
    static func sites(of links: [PromiseSite]) -> String {
        var counts: [String: Int] = [:]
        for link in links { counts[link.text ?? "an unrecorded site", default: 0] += 1 }
        let top = counts.sorted { $0.value > $1.value || ($0.value == $1.value && $0.key < $1.key) }.prefix(2).map(\.key)
        return top.joined(separator: " and ") + (counts.count > 2 ? " and \(counts.count - 2) more sites" : "")
    }
}
