extension StateActor where Machine == PromiseStateMachine<Value> {
    /// What the promise is, for `debugDescription`: "Promise<Int> pending, made at
    /// Loader.swift:42, 2 observers, 1 child"; a rejected or cancelled promise's failure trace
    /// follows on the next lines, when there is one.
    ///
    /// The observers are those still waiting for the outcome, the children the derived promises
    /// the tree still holds (a cancel reaches them). Counted under the gate; when another thread
    /// holds it at that moment the counts are left out rather than waited for.
    nonisolated func describe(as kind: String) -> String {
        var parts: [String] = []
        switch settledOutcome {
        case nil: parts.append("\(kind)<\(Value.self)> pending")
        case .success(let value)?: parts.append("\(kind)<\(Value.self)> fulfilled with \(value)")
        case .failure(let error)? where error.isCancellation: parts.append("\(kind)<\(Value.self)> cancelled")
        case .failure(let error)?: parts.append("\(kind)<\(Value.self)> rejected with \(error)")
        }
        parts.append("made at \(siteText ?? "an unrecorded site (sites are recorded in debug builds)")")
        if let (observers, children) = waitingCounts() {
            if observers > 0 { parts.append(observers == 1 ? "1 observer" : "\(observers) observers") }
            if children > 0 { parts.append(children == 1 ? "1 child" : "\(children) children") }
        }
        let head = parts.joined(separator: ", ")
        // A failed promise's path, while traces are on (R16).
        guard case .failure? = settledOutcome, let trace = traceNode else { return head }
        return head + "\n" + PromiseTrace(trace, handledBy: nil).description
    }

    /// The observers waiting and the children held, read under the gate; `nil` if it is taken.
    private nonisolated func waitingCounts() -> (observers: Int, children: Int)? {
        withStateIfGateFree { machine, tree in
            (machine.observers.count, (tree.firstChild == nil ? 0 : 1) + (tree.rare?.moreChildren?.count ?? 0))
        }
    }

    /// Whether `follower` is among this promise's observers as a promise that follows it, read
    /// under the gate; `nil` if another thread holds it. For tests that must know an adoption has
    /// been registered without observing the promise themselves.
    nonisolated func isFollowed(by follower: PromiseCore<Value>) -> Bool? {
        withStateIfGateFree { machine, _ in machine.observers.all.contains { $0 as AnyObject === follower } }
    }
}
