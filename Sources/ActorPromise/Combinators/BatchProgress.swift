import ActorPromiseExecutors

/// How far a batch (`all`, `allSettled`, `map(_:maxConcurrency:)`) has come.
public struct BatchProgress: Sendable, Hashable, CustomStringConvertible {
    /// How many items are done: fulfilled (`all`, `map`) or settled (`allSettled`).
    public let completed: Int
    /// How many items the batch has. For `map(_:maxConcurrency:…)` over a sequence that is not a
    /// collection, the elements read so far: it grows as the sequence is read, and is final once
    /// the sequence has ended.
    public let total: Int

    /// `completed / total`, between 0 and 1 (1 for an empty batch).
    public var fractionCompleted: Double { total == 0 ? 1 : Double(completed) / Double(total) }

    /// "3/10".
    public var description: String { "\(completed)/\(total)" }
}

/// Where and how a batch reports its ``BatchProgress``: `progress: .on(.main) { p in … }`.
///
/// The handler is called once per completed item, with 1, 2, … up to the total, in that order and
/// one call at a time, on the context given — so a handler on the pool or a concurrent queue never
/// runs twice at once. Once the batch is cancelled or fails, no further call starts (one already
/// running finishes). The call that reaches the total is submitted before the batch's promise is
/// fulfilled, so on a serial context (`.main` included) it runs before that promise's handlers
/// there. A context that drops work (a stopped run-loop thread) drops the reports with it.
public struct ProgressReporting: Sendable {
    let context: any ExecutionContext
    let body: @Sendable (BatchProgress) -> Void

    /// Reports on `context`.
    ///
    /// - Parameters:
    ///   - context: Where `body` runs.
    ///   - body: Sees each step of the batch.
    /// - Returns: The reporting, for the `progress:` parameter of a batch.
    @_disfavoredOverload
    public static func on(_ context: any ExecutionContext, _ body: @escaping @Sendable (BatchProgress) -> Void) -> ProgressReporting {
        ProgressReporting(context: context, body: PromiseTaskLocals.carrying(body))
    }

    /// Reports on the main actor: `progress: .on(.main) { p in self.fraction = p.fractionCompleted }`.
    ///
    /// - Parameters:
    ///   - context: `.main`.
    ///   - body: Sees each step of the batch, isolated to the main actor.
    /// - Returns: The reporting, for the `progress:` parameter of a batch.
    public static func on(_ context: MainContext, _ body: @escaping @MainActor @Sendable (BatchProgress) -> Void) -> ProgressReporting {
        Self.on(context as any ExecutionContext) { progress in MainActor.assumeIsolated { body(progress) } }
    }
}

/// Counts a batch's completed items and delivers the counts, in order and one at a time, to a
/// ``ProgressReporting`` (see there for the rules).
@usableFromInline
final class ProgressReporter: Sendable {
    private let reporting: ProgressReporting
    private let state: LockedState<Counts>

    private struct Counts: Sendable {
        var completed = 0
        var total: Int
        /// Counts not yet handed to the handler.
        var pending: [BatchProgress] = []
        /// A delivery item is queued or running on the context.
        var isDelivering = false
        var isStopped = false
    }

    @usableFromInline
    init(total: Int, reporting: ProgressReporting) {
        self.reporting = reporting
        self.state = LockedState(Counts(total: total))
    }

    /// The batch has at least `count` items (a sequence read one element at a time).
    func grow(toAtLeast count: Int) {
        state.withLock { $0.total = max($0.total, count) }
    }

    /// One more item is done.
    @usableFromInline
    func itemCompleted() {
        let submit = state.withLock { state -> Bool in
            guard !state.isStopped, state.completed < state.total else { return false }
            state.completed += 1
            state.pending.append(BatchProgress(completed: state.completed, total: state.total))
            defer { state.isDelivering = true }
            return !state.isDelivering
        }
        if submit { reporting.context.submit(ClosureWorkItem { self.deliver() }) }
    }

    /// The batch is cancelled or failed: no report starts after this.
    @usableFromInline
    func stop() {
        state.withLock { state in
            state.isStopped = true
            state.pending.removeAll()
        }
    }

    /// Hands the pending counts to the handler, in order, until none is left.
    private func deliver() {
        while true {
            let next: BatchProgress? = state.withLock { state in
                guard !state.isStopped, !state.pending.isEmpty else {
                    state.isDelivering = false
                    return nil
                }
                return state.pending.removeFirst()
            }
            guard let progress = next else { return }
            reporting.body(progress)
        }
    }
}
