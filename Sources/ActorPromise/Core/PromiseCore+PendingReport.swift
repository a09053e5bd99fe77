import ActorPromiseExecutors

// What a test runtime lists of a pending promise (`PromiseTestRuntime.pendingReport()` in
// `ActorPromiseTesting`): what it is, where it was made, and what it waits for.

/// Reports a pending promise; implemented by every promise's state.
protocol PendingReporting: AnyObject {
    /// What the promise is and where it was made, in a few words.
    var summary: String { get }
    /// `nil` once the promise has settled; otherwise ``summary`` and what it waits for.
    var pendingReport: String? { get }
}

extension StateActor: PendingReporting where Machine == PromiseStateMachine<Value> {
    nonisolated var summary: String { describe(as: "Promise") }

    nonisolated var pendingReport: String? {
        guard isPending else { return nil }
        let waitsFor: String
        if let adoptee = adoptionLock.withLock({ adopteeUnderAdoptionLock }) {
            waitsFor = "follows " + Self.short(adoptee)
        } else if let parent = parentNode, parent.isPending {
            waitsFor = "waits for its parent, " + Self.short(parent)
        } else if parentNode != nil {
            waitsFor = "waits for its handler, queued or running"
        } else {
            waitsFor = "waits for its resolver (held by the work, a timer, or a lazy body nobody observed)"
        }
        return summary + " — " + waitsFor
    }

    /// Another promise of the tree, in a few words.
    private static func short(_ node: any PromiseNode) -> String {
        (node as? any PendingReporting)?.summary ?? "a promise"
    }
}

extension StateActor {
    /// Tells a test runtime driving this thread about a promise made here (debug builds), for its
    /// report of what is still pending. The runtime keeps no reference to the promise.
    @usableFromInline
    nonisolated func recordForTestRuntime() {
        #if DEBUG
        guard let runtime = ThreadState.withCurrent({ $0.activeInterceptor }) else { return }
        runtime.record { [weak self] in (self as? any PendingReporting)?.pendingReport }
        #endif
    }
}
