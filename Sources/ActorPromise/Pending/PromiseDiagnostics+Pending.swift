extension PromiseDiagnostics {
    /// Whether promises are tracked for ``pendingSnapshot()``. On by default in debug builds, off
    /// in release builds; switch it on before the promises you want to see are made (a promise made
    /// while it is off is never tracked).
    ///
    /// Off, it costs nothing. On, each promise made pending costs an entry in a sharded registry —
    /// no process-wide lock — and, in a release build, the side object that keeps its site; the
    /// Performance article states the instructions and bytes per promise.
    public static var tracksPending: Bool {
        get { PendingRegistry.isOn }
        set {
            pendingSwitch.store(newValue, ordering: .relaxed)
            #if !DEBUG
            // Release builds keep sites only while traces or tracking are on.
            PromiseTaskLocals.keepSites(newValue || tracesAreOn)
            #endif
        }
    }

    /// Every tracked promise that is pending now: where it was made, how long it has been pending
    /// and what it waits on (see ``PendingSnapshot``).
    ///
    /// Safe to call from any thread at any time: promises made, settled and released meanwhile on
    /// other threads are each blocked at most for the copy of a few entries, and no promise is kept
    /// alive by the snapshot. Promises made while ``tracksPending`` was off are not in it.
    ///
    /// - Returns: The snapshot; print it, or render its ``PendingSnapshot/dot`` with Graphviz.
    public static func pendingSnapshot() -> PendingSnapshot { PendingSnapshot.take() }
}
