/// The errors the library itself rejects promises with.
///
/// A struct with a `code` rather than an enum, so that new codes can be added without breaking
/// exhaustive `switch`es. Match on the code:
///
/// ```swift
/// promise.catch { error in
///     if let error = error as? PromiseError, error.code == .cancelled { return }
///     log(error)
/// }
/// ```
public struct PromiseError: Error, CustomStringConvertible {
    /// What went wrong.
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        private let raw: UInt8
        private init(_ raw: UInt8) { self.raw = raw }

        /// The promise was cancelled (``Promise/cancel(reason:)``) while it was pending, or an
        /// ancestor of it was.
        public static let cancelled = Code(1)
        /// The promise can never be resolved: its ``Resolver`` was released while the promise was
        /// pending, or a context dropped the handler that was to resolve it.
        public static let abandoned = Code(2)
        /// A handler returned the very promise it was to resolve (Promises/A+ §2.3.1).
        public static let selfResolution = Code(3)
        /// A deadline passed before the promise settled.
        public static let timedOut = Code(4)
        /// A blocking wait was refused because it would block the thread that has to settle the
        /// promise (see ``Promise/wait(timeout:)``).
        public static let wouldDeadlock = Code(5)
        /// The promise would follow itself through a cycle of adoptions — `a` follows `b` and
        /// `b` follows `a`, or a longer loop — and so could never settle (R13, Promises/A+ §2.3).
        /// Every promise of the cycle is rejected with it; ``PromiseError/site`` says how many
        /// promises the cycle had.
        public static let adoptionCycle = Code(6)

        /// The code's name.
        public var description: String {
            switch self {
            case .cancelled: "cancelled"
            case .abandoned: "abandoned"
            case .selfResolution: "selfResolution"
            case .timedOut: "timedOut"
            case .wouldDeadlock: "wouldDeadlock"
            case .adoptionCycle: "adoptionCycle"
            default: "code(\(raw))"
            }
        }
    }

    /// What went wrong.
    public let code: Code
    /// The reason given to ``Promise/cancel(reason:)``, if any.
    public let reason: (any Error)?
    /// Where the abandoned promise was created (`#fileID:#line`), for ``Code/abandoned``; `nil`
    /// in release builds, which record no sites.
    public let site: String?
    /// Whether an ``Code/abandoned`` promise lost the handler that was to settle it (its context
    /// dropped it) rather than its resolver; it only changes ``description``.
    let handlerDropped: Bool

    /// Creates an error with the given code.
    ///
    /// - Parameters:
    ///   - code: What went wrong.
    ///   - reason: An underlying error, such as the reason a promise was cancelled.
    ///   - site: Where the promise concerned was created.
    public init(_ code: Code, reason: (any Error)? = nil, site: String? = nil) {
        self.code = code
        self.reason = reason
        self.site = site
        self.handlerDropped = false
    }

    /// An ``Code/abandoned`` error for a derived promise whose handler its execution context
    /// dropped without running it (a run-loop thread that stopped, a context released with work
    /// queued that discards it).
    static func handlerDropped() -> PromiseError {
        PromiseError(droppedHandler: ())
    }

    private init(droppedHandler: Void) {
        self.code = .abandoned
        self.reason = nil
        self.site = nil
        self.handlerDropped = true
    }

    /// A cancellation, with an optional reason.
    public static func cancelled(reason: (any Error)? = nil) -> PromiseError {
        PromiseError(.cancelled, reason: reason)
    }

    /// A sentence saying what happened, with the site or reason when known.
    public var description: String {
        switch code {
        case .cancelled:
            if let reason { return "PromiseError.cancelled (reason: \(reason))" }
            return "PromiseError.cancelled"
        case .abandoned where handlerDropped:
            return "PromiseError.abandoned: the handler that was to settle this promise was dropped by its execution context before it ran (a run-loop thread that stopped, or a context released with the handler queued), so the promise can never be resolved"
        case .abandoned:
            return "PromiseError.abandoned: the promise created at \(site ?? "an unknown site") can never be resolved; its resolver was released while it was pending"
        case .selfResolution:
            return "PromiseError.selfResolution: a handler returned the promise it was meant to resolve"
        case .timedOut:
            return "PromiseError.timedOut"
        case .wouldDeadlock:
            return "PromiseError.wouldDeadlock: \(site ?? "a blocking wait") was refused: blocking there could stop the very work that settles the promise. Use `try await promise.value` in async code, or `whenComplete` to be called back with the outcome, instead of `wait()`"
        case .adoptionCycle:
            return "PromiseError.adoptionCycle: \(site ?? "a cycle of promises") following one another can never settle"
        default:
            return "PromiseError.\(code)"
        }
    }
}

extension Error {
    /// Whether this error means "cancelled": a ``PromiseError`` with code
    /// ``PromiseError/Code/cancelled``, or Swift's `CancellationError`.
    public var isCancellation: Bool {
        if self is CancellationError { return true }
        return (self as? PromiseError)?.code == .cancelled
    }
}
