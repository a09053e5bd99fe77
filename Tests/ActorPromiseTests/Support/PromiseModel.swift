/// A reference model of the documented rules, for the randomized tests: what every promise of a
/// graph must hold after each step, computed without threads.
///
/// Rules modelled: settle once (R1); a handler's value fulfils its child, a throw rejects it, a
/// returned promise is followed (R3); rejections skip value handlers and `recover` handles them,
/// cancellation included (R4, R5b); `cancel` rejects a pending promise and reaches every
/// descendant, also through settled ones, and stops at one cancelled before (R5); `onCancel` runs
/// once, for a cancel that finds the promise pending (R6); a promise that tracks interest cancels
/// itself when every dependent it had — derived children and followers — was cancelled while
/// pending, and a follower cancelled before it could follow tells its source so (R7, B7); a cancel
/// travels down (its subtree settles, their followers hear it) before the interest it took away
/// travels up.
struct PromiseModel {
    enum Outcome: Equatable, CustomStringConvertible {
        case value(Int), error(Int), cancelled
        var description: String {
            switch self {
            case .value(let value): "value \(value)"
            case .error(let id): "error \(id)"
            case .cancelled: "cancelled"
            }
        }
    }

    enum Kind: CustomStringConvertible {
        /// `Promise.pending(tracksInterest:)`, with an `onCancel` handler.
        case pending(tracksInterest: Bool)
        /// `Promise(value:)` or `Promise(error:)`.
        case settled(Outcome)
        case then(parent: Int, add: Int)
        case recover(parent: Int, value: Int)
        case ensure(parent: Int)
        /// `parent.flatMap { _ in target }`.
        case flatMap(parent: Int, target: Int)

        var parent: Int? {
            switch self {
            case .pending, .settled: nil
            case .then(let parent, _), .recover(let parent, _), .ensure(let parent), .flatMap(let parent, _): parent
            }
        }

        var description: String {
            switch self {
            case .pending(let tracks): "pending(tracksInterest: \(tracks))"
            case .settled(let outcome): "settled(\(outcome))"
            case .then(let parent, let add): "#\(parent).then { $0 + \(add) }"
            case .recover(let parent, let value): "#\(parent).recover { _ in \(value) }"
            case .ensure(let parent): "#\(parent).ensure {}"
            case .flatMap(let parent, let target): "#\(parent).flatMap { _ in #\(target) }"
            }
        }
    }

    struct Node {
        let kind: Kind
        let tracksInterest: Bool
        var outcome: Outcome?
        var cancelled = false
        var children: [Int] = []
        /// The promise this one follows while pending.
        var adoptee: Int?
        var followers: [Int] = []
        var dependents = 0
        var cancelledDependents = 0
        /// A `flatMap` handler ran; a pending root's `onCancel` ran.
        var handlerRan = false
        var workStopped = false
    }

    private(set) var nodes: [Node] = []

    /// Adds a promise; returns its index.
    @discardableResult
    mutating func add(_ kind: Kind) -> Int {
        let index = nodes.count
        switch kind {
        case .pending(let tracks):
            nodes.append(Node(kind: kind, tracksInterest: tracks))
        case .settled(let outcome):
            nodes.append(Node(kind: kind, tracksInterest: true, outcome: outcome))
        case .then(let parent, _), .recover(let parent, _), .ensure(let parent), .flatMap(let parent, _):
            nodes.append(Node(kind: kind, tracksInterest: nodes[parent].tracksInterest))
            nodes[parent].children.append(index)
            nodes[parent].dependents += 1
            if let outcome = nodes[parent].outcome { run(index, with: outcome) }
        }
        return index
    }

    mutating func fulfill(_ index: Int, _ value: Int) { settle(index, .value(value)) }
    mutating func reject(_ index: Int, _ id: Int) { settle(index, .error(id)) }

    /// `resolver.resolve(with: target)` on the pending root `index`.
    mutating func resolve(_ index: Int, with target: Int) {
        guard nodes[index].outcome == nil else {
            // Cancelled before it could follow: the target gains and loses a dependent (B7).
            if nodes[index].cancelled {
                nodes[target].dependents += 1
                dependentCancelled(target)
            }
            return
        }
        follow(index, target)
    }

    /// Whether a `cancel` is being applied, and the promises that lost their last dependent
    /// meanwhile: a cancel travels down first, its subtree settling and the promises that follow
    /// them hearing it; then those promises cancel themselves, in the order they lost interest.
    private var walking = false
    private var backlog: [Int] = []

    mutating func cancel(_ index: Int) {
        let outermost = !walking
        walking = true
        cancelBranch(index)
        guard outermost else { return }
        var next = 0
        while next < backlog.count {
            next += 1
            cancelBranch(backlog[next - 1])
        }
        backlog = []
        walking = false
    }

    private mutating func cancelBranch(_ index: Int) {
        // Phase 1: mark the subtree, stopping at promises cancelled before.
        var work = [index]
        var cancelledPending: [Int] = []
        while let next = work.popLast() {
            guard !nodes[next].cancelled else { continue }
            nodes[next].cancelled = true
            if nodes[next].outcome == nil {
                nodes[next].outcome = .cancelled
                cancelledPending.append(next)
            }
            work.append(contentsOf: nodes[next].children)
        }
        // Phase 2: what those cancellations set off.
        for node in cancelledPending {
            if case .pending = nodes[node].kind { nodes[node].workStopped = true }
            let adoptee = nodes[node].adoptee
            nodes[node].adoptee = nil
            deliver(node)
            if let parent = nodes[node].kind.parent { dependentCancelled(parent) }
            if let adoptee { dependentCancelled(adoptee) }
        }
    }

    private mutating func dependentCancelled(_ index: Int) {
        nodes[index].cancelledDependents += 1
        let node = nodes[index]
        guard node.tracksInterest, node.outcome == nil, node.cancelledDependents >= node.dependents else { return }
        if walking { backlog.append(index) } else { cancel(index) }
    }

    private mutating func settle(_ index: Int, _ outcome: Outcome) {
        guard nodes[index].outcome == nil else { return }
        nodes[index].outcome = outcome
        nodes[index].adoptee = nil
        deliver(index)
    }

    /// Hands the outcome of `index` to its pending children and followers.
    private mutating func deliver(_ index: Int) {
        guard let outcome = nodes[index].outcome else { return }
        for child in nodes[index].children where nodes[child].outcome == nil { run(child, with: outcome) }
        for follower in nodes[index].followers where nodes[follower].adoptee == index { settle(follower, outcome) }
    }

    /// Runs the handler of the derived promise `index` with its parent's outcome.
    private mutating func run(_ index: Int, with outcome: Outcome) {
        switch (nodes[index].kind, outcome) {
        case (.then(_, let add), .value(let value)): settle(index, .value(value + add))
        case (.recover(_, let value), .error), (.recover(_, let value), .cancelled): settle(index, .value(value))
        case (.flatMap(_, let target), .value):
            nodes[index].handlerRan = true
            follow(index, target)
        default: settle(index, outcome)
        }
    }

    private mutating func follow(_ index: Int, _ target: Int) {
        nodes[target].dependents += 1
        if let outcome = nodes[target].outcome {
            settle(index, outcome)
        } else {
            nodes[index].adoptee = target
            nodes[target].followers.append(index)
        }
    }
}
