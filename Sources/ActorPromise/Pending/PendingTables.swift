/// What a snapshot's promises share, numbered: type names, sites, waits and combinators' inputs.
/// A million promises made by a few lines of code share a few of each, so each promise holds
/// numbers instead of copies.
struct PendingTables: Sendable {
    /// The names of value types (`Promise<Int>`) and of contexts' types.
    private(set) var typeNames: [String] = []
    private(set) var sites: [PromiseSite] = []
    var waits: [PendingWait] = []
    var inputLists: [[ObjectIdentifier]] = []

    private var valueTypes: [ObjectIdentifier: Int32] = [:]
    private var contextTypes: [ObjectIdentifier: Int32] = [:]
    private var siteNumbers: [SiteKey: Int32] = [:]
    /// The last site numbered: a chain's links are usually made at one line, one after another.
    private var lastSite: (key: SiteKey, number: Int32)?

    /// When the snapshot was taken.
    let takenAt: ContinuousClock.Instant

    init(takenAt: ContinuousClock.Instant) {
        self.takenAt = takenAt
        // The waits without a payload, at the numbers `number(of:)` gives them.
        waits = [.resolver, .lazyBody, .completionHandler, .task, .inputs]
    }

    mutating func number(ofValueType type: any Any.Type) -> Int32 {
        Self.number(type, in: &valueTypes, names: &typeNames) { "Promise<\(type)>" }
    }

    mutating func number(ofContext type: any Any.Type) -> Int32 {
        Self.number(type, in: &contextTypes, names: &typeNames) { "\(type)" }
    }

    private static func number(
        _ type: any Any.Type, in known: inout [ObjectIdentifier: Int32], names: inout [String], _ name: () -> String
    ) -> Int32 {
        if let found = known[ObjectIdentifier(type)] { return found }
        names.append(name())
        known[ObjectIdentifier(type)] = Int32(names.count - 1)
        return Int32(names.count - 1)
    }

    mutating func number(of site: PromiseSite) -> Int32 {
        let key = SiteKey(site)
        if let lastSite, lastSite.key == key { return lastSite.number }
        let number = siteNumbers[key] ?? {
            sites.append(site)
            siteNumbers[key] = Int32(sites.count - 1)
            return Int32(sites.count - 1)
        }()
        lastSite = (key, number)
        return number
    }

    mutating func number(of wait: PendingWait) -> Int32 {
        switch wait {
        case .resolver: return 0
        case .lazyBody: return 1
        case .completionHandler: return 2
        case .task: return 3
        case .inputs: return 4
        case .timer, .timeout, .handOver, .attempt, .backOff:
            waits.append(wait)
            return Int32(waits.count - 1)
        }
    }

    mutating func number(of inputs: [ObjectIdentifier]) -> Int32 {
        inputLists.append(inputs)
        return Int32(inputLists.count - 1)
    }

    func site(_ promise: PendingPromise) -> PromiseSite { sites[Int(promise.site)] }

    /// Calls `body` with each promise `promise` waits for, nearest first — the promise it follows,
    /// its pending parent, a timeout's source, a combinator's inputs, a hand-over's promise —
    /// until it returns `true`; returns whether it did. Allocates nothing.
    @discardableResult
    func forEachWaitedFor(by promise: PendingPromise, _ body: (ObjectIdentifier) -> Bool) -> Bool {
        if let adoptee = promise.adoptee { return body(adoptee) }
        if promise.parentIsPending, let parent = promise.parent { return body(parent) }
        switch waits[Int(promise.wait)] {
        case .timeout(let source, _, _): return body(source)
        case .inputs: return promise.inputs >= 0 && inputLists[Int(promise.inputs)].contains(where: body)
        case .handOver(let inner), .attempt(let inner, _, _): return body(inner)
        default: return false
        }
    }
}

/// A site as a key: its file's address (each `#fileID` literal is one constant), its line and its
/// operation.
private struct SiteKey: Hashable {
    let file: UInt
    let line: UInt32
    let operation: UInt8
    let index: UInt16
    let count: UInt16

    init(_ site: PromiseSite) {
        file = Self.address(site.file)
        line = site.line
        operation = site.operation.rawValue
        index = site.index
        count = site.count
    }

    private static func address(_ text: StaticString) -> UInt {
        text.hasPointerRepresentation ? UInt(bitPattern: text.utf8Start) : UInt(text.unicodeScalar.value)
    }
}
