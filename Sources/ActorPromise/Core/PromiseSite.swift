/// Where a promise was made, and by which operation: a `#fileID` literal, a line, and the
/// operation (`then`, `map`, `zip input` 2 of 3, …).
///
/// Debug builds store one in every promise (see ``PromiseCore/site``) for the reports of
/// ``PromiseDiagnostics``, for `debugDescription` and for failure traces; release builds keep one
/// only while traces are switched on (see ``PromiseTrace/isEnabled``), so that the promise stays
/// as small as it can.
@usableFromInline
struct PromiseSite: Sendable, CustomStringConvertible {
    /// The file, empty when unknown.
    @usableFromInline let file: StaticString
    @usableFromInline let line: UInt32
    /// The operation that made the promise.
    @usableFromInline let operation: TraceOperation
    /// For an operation with numbered parts (`zip input` 2 of 3, `retry attempt` 3 of 3): the
    /// part's number from 1, and how many there are (0 when unknown); both 0 otherwise.
    @usableFromInline let index: UInt16
    @usableFromInline let count: UInt16

    /// The site of a call: pass `#fileID` and `#line`, and the operation.
    @inlinable
    init(fileID: StaticString, line: UInt, operation: TraceOperation = .promise, index: Int = 0, count: Int = 0) {
        file = fileID
        self.line = UInt32(clamping: line)
        self.operation = operation
        self.index = UInt16(clamping: index)
        self.count = UInt16(clamping: count)
    }

    /// An unknown site, of a promise the library makes for its own bookkeeping.
    @inlinable
    init() {
        file = ""
        line = 0
        operation = .library
        index = 0
        count = 0
    }

    /// `File.swift:42`, or `nil` if unknown.
    var text: String? {
        let name = file.description
        return name.isEmpty ? nil : "\(name):\(line)"
    }

    /// `zip input 2 of 3`, `retry attempt 3`, `then`; empty for the library's own promises.
    var operationText: String {
        let name = operation.name
        guard index > 0 else { return name }
        return count > 0 ? "\(name) \(index) of \(count)" : "\(name) \(index)"
    }

    /// `File.swift:42`, or for a site with no file the operation's name (`wait(timeout:)`), or
    /// `nil`.
    var namedText: String? { text ?? (operationText.isEmpty ? nil : operationText) }

    /// Whether the promise is one the library makes for its own bookkeeping (a branch, a
    /// combinator's wrapper): no operation of the user's, or made in the library's own files.
    var isLibrarys: Bool { operation == .library || file.description.hasPrefix("ActorPromise/") }

    @usableFromInline var description: String { text ?? "an unknown site" }
}

/// The operation that made a promise, or that a trace names at a site (R16).
@usableFromInline
enum TraceOperation: UInt8, Sendable {
    /// A promise the library makes for its own bookkeeping: traces leave it out.
    case library
    case promise, lazy
    case then, map, flatMap, `catch`, recover, tap, ensure, ensureThen, shared
    case retry, retryAttempt, timeout
    case zipInput, allInput, allSettledInput, anyInput, raceInput
    case reject, resolve, cancel, cancelledWhileQueued, waitTimeout

    /// Whether this names a combinator's inputs (`zip input`), which is also the operation of the
    /// combinator's own result.
    var isCombinatorInput: Bool {
        switch self {
        case .zipInput, .allInput, .allSettledInput, .anyInput, .raceInput: true
        default: false
        }
    }

    /// The combinator an input operation belongs to: `zip` for `zip input`.
    var combinatorName: String {
        name.hasSuffix(" input") ? String(name.dropLast(" input".count)) : name
    }

    /// The name a trace shows.
    var name: String {
        switch self {
        case .library: ""
        case .promise: "promise"
        case .lazy: "Promise.lazy"
        case .then: "then"
        case .map: "map"
        case .flatMap: "flatMap"
        case .catch: "catch"
        case .recover: "recover"
        case .tap: "tap"
        case .ensure: "ensure"
        case .ensureThen: "ensureThen"
        case .shared: "shared"
        case .retry: "retry"
        case .retryAttempt: "retry attempt"
        case .timeout: "timeout"
        case .zipInput: "zip input"
        case .allInput: "all input"
        case .allSettledInput: "allSettled input"
        case .anyInput: "any input"
        case .raceInput: "race input"
        case .reject: "reject"
        case .resolve: "resolve"
        case .cancel: "cancel()"
        case .cancelledWhileQueued: "cancelled while queued"
        case .waitTimeout: "wait(timeout:)"
        }
    }
}
