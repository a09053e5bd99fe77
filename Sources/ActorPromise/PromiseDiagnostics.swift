import Synchronization

/// Hooks that report misuse which the library recovers from but a developer wants to hear about.
public enum PromiseDiagnostics {
    private static let handler = Mutex<(@Sendable (PromiseError) -> Void)?>(nil)
    private static let unhandled = Mutex<(@Sendable (UnhandledRejection) -> Void)?>(nil)

    /// Called when a pending promise is abandoned (its resolver was released before settling it),
    /// with the ``PromiseError`` its observers receive; `error.site` names where the promise was
    /// created.
    ///
    /// By default, debug builds print a warning to standard error and release builds stay silent.
    /// Set it to `nil` to restore the default. It runs on the thread that released the resolver.
    public static var abandonmentHandler: (@Sendable (PromiseError) -> Void)? {
        get { handler.withLock { $0 } }
        set { handler.withLock { $0 = newValue } }
    }

    static func reportAbandoned(_ error: PromiseError) {
        if let custom = handler.withLock({ $0 }) {
            custom(error)
            return
        }
        #if DEBUG
        var line = "ActorPromise warning: \(error)\n"
        line.withUTF8 { _ = write(2, $0.baseAddress, $0.count) }
        #endif
    }

    /// Called when a promise rejected with an error that nobody took is released (R14), with the
    /// error and the site where that promise was made.
    ///
    /// A rejection is taken by `catch`, `recover`, the error half of a two-handler `then`,
    /// `whenComplete`, an awaiter (`value`, `outcome`), `wait`, a combinator, `timeout` or `retry`
    /// observing it as an input, or a promise that follows it. A value-only `then`, `map`, `ensure`
    /// or `tap` passes it on to the promise it returns, so a chain is reported once, for the
    /// promise where the rejection stopped. A handler attached any time before the release
    /// counts, so there is no false alarm for a `catch` added late. Cancellations and abandoned
    /// promises are never reported here (abandonment has ``abandonmentHandler``).
    ///
    /// By default, debug builds print a warning to standard error and release builds stay silent.
    /// Set it to `nil` to restore the default. It runs on the thread that releases the promise.
    public static var unhandledRejectionHandler: (@Sendable (UnhandledRejection) -> Void)? {
        get { unhandled.withLock { $0 } }
        set { unhandled.withLock { $0 = newValue } }
    }

    static func reportUnhandled(_ rejection: UnhandledRejection) {
        if let custom = unhandled.withLock({ $0 }) {
            custom(rejection)
            return
        }
        #if DEBUG
        var line = "ActorPromise warning: \(rejection)\n"
        line.withUTF8 { _ = write(2, $0.baseAddress, $0.count) }
        #endif
    }
}

/// A rejection that no party took, reported when its promise was released (R14; see
/// ``PromiseDiagnostics/unhandledRejectionHandler``).
public struct UnhandledRejection: Sendable, CustomStringConvertible {
    /// The error the promise was rejected with.
    public let error: any Error
    /// Where the promise was made, `File.swift:42` (recorded in debug builds).
    public let site: String

    /// "unhandled rejection of the promise made at File.swift:42: error".
    public var description: String { "unhandled rejection of the promise made at \(site): \(error)" }
}
