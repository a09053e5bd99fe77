/// Which rejections a `catch` or `recover` handler sees.
///
/// Cancellation is a rejection (R5b), so by default error handlers see it. Code that shows errors
/// to a person — a view model that replaces a load when the user types — usually wants to skip it:
/// `catch(policy: .allErrorsExceptCancellation)`, the spelling PromiseKit users know. A skipped
/// cancellation is passed on unchanged: the promise the handler returns is rejected with it, so the
/// chain below still learns that it was cancelled.
public enum CatchPolicy: Sendable, Hashable {
    /// The handler sees every rejection, cancellation included. The default.
    case allErrors
    /// The handler sees every rejection except ``PromiseError/Code/cancelled``, which passes on.
    case allErrorsExceptCancellation

    /// Whether a handler with this policy sees `error`.
    @inlinable
    public func handles(_ error: any Error) -> Bool {
        self == .allErrors || !error.isCancellation
    }
}
