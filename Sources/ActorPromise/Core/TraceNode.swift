import ActorPromiseExecutors
import Synchronization

// Failure traces (R16): how a rejection or a cancellation entered a chain of promises, and the
// promises it passed through. A promise that fails while traces are on keeps one `TraceNode`:
// the entry for itself, linked to the trace of the promise its failure came from. Branches share
// their common part; nothing in a node holds a promise or a value.

/// Whether promises record failure traces: on by default in debug builds, off in release builds
/// (see ``PromiseTrace/isEnabled``). Read with one relaxed load on the paths that record traces.
@usableFromInline
let traceSwitch = Atomic<Bool>(tracesByDefault)

#if DEBUG
@usableFromInline let tracesByDefault = true
#else
@usableFromInline let tracesByDefault = false
#endif

/// Whether failure traces are recorded: one load, inlined where it is asked.
@inlinable @inline(__always)
var tracesAreOn: Bool { traceSwitch.load(ordering: .relaxed) }

/// How an error or a cancellation entered a chain of promises.
@usableFromInline
enum TraceCause: Sendable {
    /// Settled with an error by code the library cannot name (the promise's own site is shown).
    case settled
    /// A resolver's `reject` or `resolve`, called at this site.
    case rejected(PromiseSite)
    /// The promise's handler threw (or returned a new error).
    case threw
    /// The body of `Promise { resolver in … }` threw.
    case bodyThrew
    /// The promise was made rejected.
    case madeRejected
    /// A `timeout` ran out.
    case timedOut
    /// The resolver was released with the promise pending, or a context dropped the handler.
    case abandoned
    /// `cancel()` was called at this site.
    case cancelled(PromiseSite)
    /// A cancelled task was awaiting this promise, or running its work.
    case taskCancelled
    /// The last dependent that waited for the promise let go: the one made at this site.
    case lostInterest(PromiseSite)
}

/// One entry of a failure trace, linked to the entries before it (see the top of this file).
@usableFromInline
final class TraceNode: Sendable {
    /// How the failure entered, for the first entry; `nil` for a promise it passed through.
    let cause: TraceCause?
    /// The promise this entry is about: where it was made, and by which operation.
    let site: PromiseSite
    let previous: TraceNode?
    /// How many entries this trace keeps, this one included.
    let length: Int
    /// How many entries were left out between `previous` and this one (see ``limit``).
    let omitted: Int
    /// Whether the failure is a cancellation.
    let isCancellation: Bool

    /// The most entries a trace keeps: the first ones, then a count of those left out, then the
    /// last. A recursive loop that fails after a million iterations keeps this many.
    static let limit = PromiseTrace.limit

    /// The first entry of a trace.
    @usableFromInline
    init(cause: TraceCause, site: PromiseSite, isCancellation: Bool) {
        self.cause = cause
        self.site = site
        previous = nil
        length = 1
        omitted = 0
        self.isCancellation = isCancellation
    }

    private init(site: PromiseSite, previous: TraceNode?, length: Int, omitted: Int, isCancellation: Bool) {
        cause = nil
        self.site = site
        self.previous = previous
        self.length = length
        self.omitted = omitted
        self.isCancellation = isCancellation
    }

    /// This trace, carried on through the promise made at `site`. At the limit the new entry
    /// takes the place of the last one, which is counted as left out: the trace stays as long.
    @usableFromInline
    func passing(through site: PromiseSite, isCancellation: Bool? = nil) -> TraceNode {
        let cancelled = isCancellation ?? self.isCancellation
        if length < Self.limit || cause != nil {
            return TraceNode(site: site, previous: self, length: length + 1, omitted: 0, isCancellation: cancelled)
        }
        return TraceNode(site: site, previous: previous, length: length, omitted: omitted + 1, isCancellation: cancelled)
    }

    /// The entries, first to last, each with how many were left out before it.
    var entries: [(node: TraceNode, omittedBefore: Int)] {
        var result: [(TraceNode, Int)] = []
        var node: TraceNode? = self
        while let current = node {
            result.append((current, current.omitted))
            node = current.previous
        }
        return result.reversed()
    }
}

/// The failure a handler on this thread is handed, and its trace: set while the handler runs, so
/// that a promise settled with the same error carries the trace on, and so that
/// ``PromiseTrace/of(_:)`` answers inside the handler.
@usableFromInline
final class HandledFailure {
    let error: any Error
    let trace: TraceNode
    /// The promise whose handler runs: where the failure is handled, unless passed on.
    let handler: PromiseSite

    init(error: any Error, trace: TraceNode, handler: PromiseSite) {
        self.error = error
        self.trace = trace
        self.handler = handler
    }

    /// The failure handed to a handler on this thread, if any.
    static var current: HandledFailure? {
        ThreadState.withCurrent { $0.handledFailure } as? HandledFailure
    }

    /// The failure a thread had before a handler began, to restore when it ends.
    @usableFromInline
    struct Outer {
        let failure: AnyObject?
    }

    /// Makes `failure` the thread's current one; returns the one to restore.
    static func begin(_ failure: HandledFailure?) -> Outer {
        ThreadState.withCurrent { state in
            let outer = state.handledFailure
            state.handledFailure = failure
            return Outer(failure: outer)
        }
    }

    /// Restores the thread's failure from before ``begin(_:)``.
    @usableFromInline
    static func end(restoring outer: Outer) {
        ThreadState.withCurrent { $0.handledFailure = outer.failure }
    }
}

/// The last failure an `await` threw on a thread, and its trace: `value` and `outcome` run on
/// the caller's executor, so the `catch` that follows reads it on the same thread, whatever other
/// tasks fail meanwhile. Holds the error, so that the identity compared belongs to no other error.
final class AwaitedFailure {
    let error: any Error
    let trace: TraceNode

    init(error: any Error, trace: TraceNode) {
        self.error = error
        self.trace = trace
    }

    /// The failure an `await` threw last on this thread, if any.
    static var current: AwaitedFailure? {
        ThreadState.withCurrent { $0.awaitedFailure } as? AwaitedFailure
    }

    /// Makes `error` this thread's last awaited failure.
    static func remember(_ error: any Error, trace: TraceNode) {
        let failure = AwaitedFailure(error: error, trace: trace)
        ThreadState.withCurrent { $0.awaitedFailure = failure }
    }
}

/// Failures thrown to awaiters lately, with their traces, so that ``PromiseTrace/of(_:)`` answers
/// after `try await promise.value` threw when the thread's own last failure (``AwaitedFailure``)
/// is another one — the task awaited again, or moved to another thread, before asking. Holds the
/// errors it lists, so that an identity it compares can belong to no other error meanwhile; keeps
/// the last ``capacity``.
enum RecentFailures {
    static let capacity = 32
    private static let entries = LockedState<[(error: any Error, trace: TraceNode, handler: String?)]>([])

    static func remember(_ error: any Error, trace: TraceNode, handler: String?) {
        entries.withLock { list in
            if list.count == capacity { list.removeFirst() }
            list.append((error, trace, handler))
        }
    }

    static func find(_ error: any Error) -> (trace: TraceNode, handler: String?)? {
        let identity = ErrorIdentity(error)
        return entries.withLock { list in
            list.last { ErrorIdentity($0.error) == identity }.map { ($0.trace, $0.handler) }
        }
    }
}

extension PromiseTrace {
    /// The trace `node` ends, as users see it.
    init(_ node: TraceNode, handledBy: String?) {
        var entries: [Entry] = []
        var omitted = 0
        for (index, (node, omittedBefore)) in node.entries.enumerated() {
            omitted += omittedBefore
            // The library's own promises (a combinator's branches) are left out.
            if index > 0, node.site.isLibrarys { continue }
            let (cause, causeSite) = Self.cause(of: node.cause)
            entries.append(Entry(
                cause: cause, causeSite: causeSite, operation: node.site.operationText.isEmpty ? "promise" : node.site.operationText,
                site: node.site.text, omittedBefore: omitted))
            omitted = 0
        }
        self.init(kind: node.isCancellation ? .cancellation : .rejection, entries: entries, handledBy: handledBy)
    }

    private static func cause(of cause: TraceCause?) -> (Cause?, String?) {
        switch cause {
        case nil: (nil, nil)
        case .settled: (.unknown, nil)
        // A call inside the library (a completion handler it made) names no site of the user's.
        case .rejected(let site): (.rejected, site.isLibrarys ? nil : site.text)
        case .threw: (.handlerThrew, nil)
        case .bodyThrew: (.bodyThrew, nil)
        case .madeRejected: (.madeRejected, nil)
        case .timedOut: (.timedOut, nil)
        case .abandoned: (.abandoned, nil)
        case .cancelled(let site): (.cancelled, site.isLibrarys ? nil : site.namedText)
        case .taskCancelled: (.taskCancelled, nil)
        case .lostInterest(let site): (.lostInterest, site.namedText)
        }
    }
}
