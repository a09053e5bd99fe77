import Synchronization

/// Hooks that report misuse which the library recovers from but a developer wants to hear about.
public enum PromiseDiagnostics {
    private static let handler = Mutex<(@Sendable (PromiseError) -> Void)?>(nil)

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
}
