/// The error of a combinator whose every input was rejected (``Promise/any(_:fileID:line:)``): all the
/// errors, in input order.
public struct AggregateError: Error, CustomStringConvertible {
    /// The inputs' errors, in input order. Empty when there were no inputs.
    public let errors: [any Error]

    /// Creates an aggregate of `errors`.
    public init(errors: [any Error]) { self.errors = errors }

    /// How many inputs failed, and their errors.
    public var description: String {
        errors.isEmpty ? "AggregateError: no inputs" : "AggregateError (\(errors.count)): \(errors.map { "\($0)" }.joined(separator: "; "))"
    }
}
