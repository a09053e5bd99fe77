import ActorPromiseExecutors

// A promise in the pending registry (see `PendingRegistry`): what it tells the registry when it
// is made, and what a snapshot reads of it without its gate.

extension StateActor {
    /// Enters this promise, just made pending, in the pending registry.
    nonisolated func registerPending(site: PromiseSite) {
        PendingRegistry.register(
            UnretainedNode(self), id: ObjectIdentifier(self), site: site, valueType: Value.self, contextType: link.context.map { type(of: $0) },
            wait: site.operation == .lazy ? .lazyBody : .resolver)
    }

    /// Says what this promise waits on now, if it is tracked: one relaxed load while tracking is
    /// off.
    @inlinable
    nonisolated func notePending(_ wait: @autoclosure () -> PendingWait) {
        guard PendingRegistry.isOn else { return }
        PendingRegistry.note(ObjectIdentifier(self), wait(), inputs: nil)
    }

    /// Says that this promise, a combinator's, waits for `inputs`, if it is tracked.
    @inlinable
    nonisolated func notePendingInputs(_ inputs: @autoclosure () -> [ObjectIdentifier]) {
        guard PendingRegistry.isOn else { return }
        PendingRegistry.note(ObjectIdentifier(self), .inputs, inputs: inputs())
    }

    /// `nil` once settled; otherwise its parent, and whether it follows another promise. Reads
    /// the status and `parent`, which only `init` and `deinit` write.
    nonisolated var pendingFacts: PendingFacts? {
        guard !status.load(ordering: .acquiring).contains(.settled) else { return nil }
        var facts = PendingFacts()
        if let parent {
            facts.parent = ObjectIdentifier(parent)
            facts.parentIsPending = parent.isPending
        }
        facts.isFollowing = status.load(ordering: .relaxed).contains(.following)
        return facts
    }
}
