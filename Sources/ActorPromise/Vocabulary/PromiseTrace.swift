/// The path of a promise's failure: where a rejection or a cancellation entered a chain of
/// promises, and each promise it passed through, with the operation that made it.
///
/// An error that crossed several `then`s, a `retry` and a `zip` arrives in a `catch` or at an
/// `await` as the same error it was — its type and identity do not change — and
/// ``of(_:)`` returns its path:
///
/// ```swift
/// do {
///     let profile = try await model.loadProfile()
/// } catch {
///     if let trace = PromiseTrace.of(error) { logger.error("\(trace)") }
/// }
/// ```
///
/// A trace keeps sites (`File.swift:42`) and operation names, never promises or values, and at
/// most ``limit`` entries: the first ones, a count of those left out, and the last. Traces are
/// recorded while ``isEnabled`` is on: by default in debug builds; release builds switch them on
/// at run time.
public struct PromiseTrace: Sendable, CustomStringConvertible {
    /// Whether the failure is a rejection or a cancellation.
    public enum Kind: Sendable, Equatable {
        /// An error: a resolver's `reject`, a handler that threw, a timeout, an abandoned resolver.
        case rejection
        /// A cancellation: a `cancel()` call, a cancelled task, or lost interest.
        case cancellation
    }

    /// How the failure entered the chain, said by the first entry.
    public enum Cause: Sendable, Equatable {
        /// A resolver's `reject` or `resolve`; ``Entry/causeSite`` is the call.
        case rejected
        /// A handler threw, or returned a new error; the entry is the handler's promise, made
        /// where the handler was registered.
        case handlerThrew
        /// The body of `Promise { resolver in … }` threw.
        case bodyThrew
        /// The promise was made rejected.
        case madeRejected
        /// A `timeout` ran out; the entry is the promise `timeout` made.
        case timedOut
        /// The resolver was released while the promise was pending, or an execution context
        /// dropped the handler.
        case abandoned
        /// `cancel()` was called; ``Entry/causeSite`` is the call.
        case cancelled
        /// A cancelled task was awaiting the promise.
        case taskCancelled
        /// The last dependent that waited for the promise was cancelled (interest);
        /// ``Entry/causeSite`` is where that dependent was made.
        case lostInterest
        /// Settled with an error by code that left no site.
        case unknown
    }

    /// One promise on the path.
    public struct Entry: Sendable, CustomStringConvertible {
        /// How the failure entered, for the first entry; `nil` for the promises it passed through.
        public let cause: Cause?
        /// Where the cause happened, when that is not where the promise was made: the `reject` or
        /// `cancel()` call, the dependent that let go.
        public let causeSite: String?
        /// The operation that made the promise: `then`, `map`, `catch`, `retry attempt 3 of 3`,
        /// `zip input 2 of 2`, `timeout`, `promise` (a promise made with a resolver), …
        public let operation: String
        /// Where the promise was made, `File.swift:42`; `nil` if unknown (a release build made
        /// it before traces were switched on).
        public let site: String?
        /// How many entries were left out just before this one (see ``PromiseTrace/limit``).
        public let omittedBefore: Int

        /// `then (Model.swift:40)`, with the cause first on the first entry.
        public var description: String {
            let made = "\(operation) (\(site ?? "site unknown"))"
            guard let cause else { return made }
            let at = causeSite.map { " at \($0)" } ?? ""
            return "\(Self.name(of: cause))\(at), in \(made)"
        }

        static func name(of cause: Cause) -> String {
            switch cause {
            case .rejected: "rejected"
            case .handlerThrew: "handler threw"
            case .bodyThrew: "body threw"
            case .madeRejected: "made rejected"
            case .timedOut: "timed out"
            case .abandoned: "abandoned"
            case .cancelled: "cancel()"
            case .taskCancelled: "task cancelled"
            case .lostInterest: "lost interest"
            case .unknown: "rejected"
            }
        }
    }

    /// Rejection or cancellation.
    public let kind: Kind
    /// The promises on the path, from the one where the failure entered to the last it reached.
    public let entries: [Entry]
    /// Where the failure was handled, for a trace asked for from a handler or after an `await`:
    /// `catch (Model.swift:50)`, `await`; `nil` otherwise.
    public let handledBy: String?

    /// The most entries a trace keeps: the first ones, a count of those left out, and the last.
    public static var limit: Int { 32 }

    /// How the failure entered the chain.
    public var cause: Cause { entries.first?.cause ?? .unknown }

    /// The trace, one entry per line, first to last.
    public var description: String {
        var lines = ["\(kind == .rejection ? "rejection" : "cancellation") path:"]
        for entry in entries {
            if entry.omittedBefore > 0 { lines.append("  … \(entry.omittedBefore) more") }
            lines.append("  \(entry)")
        }
        if let handledBy { lines.append("  handled by \(handledBy)") }
        return lines.joined(separator: "\n")
    }

    /// A trace of `entries`, handled by `handledBy`.
    init(kind: Kind, entries: [Entry], handledBy: String?) {
        self.kind = kind
        self.entries = entries
        self.handledBy = handledBy
    }
}
