extension PendingForest {
    /// The rows as a Graphviz graph: a node per promise and per summary, an edge from each to
    /// what it waits on, and a node of its own shape for what a root waits on outside the
    /// promises (a resolver, a completion handler, a task, a timer, a lazy body, a context).
    var dot: String {
        var out = "digraph pending {\n"
        out += "  rankdir=BT;\n"
        out += "  node [shape=box, style=rounded, fontname=\"Helvetica\", fontsize=10];\n"
        out += "  edge [fontname=\"Helvetica\", fontsize=9];\n"
        var rowOf: [ObjectIdentifier: Int] = [:]
        for (row, placed) in placed.enumerated() {
            if case .promise(let node) = placed.row { rowOf[snapshot.promises[node].id] = row }
        }
        for (row, placed) in placed.enumerated() {
            switch placed.row {
            case .summary(let text):
                out += "  p\(row) [shape=plaintext, label=\(Self.quoted(text))];\n"
                if let parent = placed.parent { out += "  p\(row) -> p\(parent) [style=dashed];\n" }
            case .promise(let node):
                let promise = snapshot.promises[node]
                let site = snapshot.site(promise)
                let label = snapshot.tables.typeNames[Int(promise.type)] + "\n" + snapshot.siteText(promise) + "\n"
                    + (site.operationText.isEmpty ? "" : site.operationText + ", ")
                    + "pending " + Self.age(promise.age)
                out += "  p\(row) [label=\(Self.quoted(label))];\n"
                out += edges(from: row, promise, rowOf: rowOf)
            }
        }
        return out + "}\n"
    }

    /// The edges of one promise: to each promise it waits for that is shown, or to a node for
    /// what it waits on outside the promises.
    private func edges(from row: Int, _ promise: PendingPromise, rowOf: [ObjectIdentifier: Int]) -> String {
        var out = ""
        let relation: String = if promise.adoptee != nil { "follows" } else if promise.parentIsPending { "parent" } else {
            switch snapshot.wait(promise) {
            case .timeout: "source"
            case .inputs: "input"
            case .handOver: "hand-over"
            case .attempt: "attempt"
            default: ""
            }
        }
        let targets = snapshot.waitsFor(promise).compactMap { rowOf[$0] }
        for target in targets { out += "  p\(row) -> p\(target) [label=\(Self.quoted(relation))];\n" }
        if let parentRow = placed[row].parent, !targets.contains(parentRow) {
            out += "  p\(row) -> p\(parentRow) [style=dashed];\n"
        }
        guard let (shape, label) = outside(promise) else { return out }
        out += "  w\(row) [shape=\(shape), style=\"\", label=\(Self.quoted(label))];\n"
        out += "  p\(row) -> w\(row);\n"
        return out
    }

    /// What a promise waits on outside the promises, as a node's shape and label.
    private func outside(_ promise: PendingPromise) -> (String, String)? {
        if promise.adoptee != nil || promise.parentIsPending { return nil }
        if promise.parent != nil { return ("component", "handler, queued or running\non " + (snapshot.contextName(promise) ?? "its context")) }
        switch snapshot.wait(promise) {
        case .resolver: return ("invhouse", "resolver\nheld by the work")
        case .lazyBody: return ("note", "lazy body\nnobody observed")
        case .completionHandler: return ("cds", "completion handler\nnot yet called")
        case .task: return ("hexagon", "task\nrunning")
        case .timer(let delay, let due), .timeout(_, let delay, let due), .backOff(let delay, let due, _):
            return ("circle", "timer\n" + Self.timer(delay, due: due, at: snapshot.tables.takenAt))
        case .inputs, .handOver, .attempt: return nil
        }
    }

    /// A Graphviz string literal.
    static func quoted(_ text: String) -> String {
        var out = "\""
        for character in text {
            switch character {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            default: out.append(character)
            }
        }
        return out + "\""
    }
}
