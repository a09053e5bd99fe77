/// Handlers and bodies made to run with the task-local values bound where they were handed over
/// (R15): see ``PromiseTaskLocals``.
extension PromiseTaskLocals {
    // Inlinable and not variadic, so that they are specialized where they are called: with no key
    // registered, `body` comes back as it went in. (A variadic-generic version would wrap every
    // lazy body in two reabstraction thunks, each an allocation. The generic forms below still
    // wrap closures whose types differ from their maximally abstract shape; hot paths get an
    // overload of their own.)

    /// `body`, made to run with the task-local values bound here; `body` itself when no key is
    /// registered.
    @inlinable
    static func carrying<Argument, Result>(
        _ body: @escaping @Sendable (Argument) throws -> Result
    ) -> @Sendable (Argument) throws -> Result {
        guard let captured = capture() else { return body }
        return { argument in try captured.bind { try body(argument) } }
    }

    /// The non-throwing form of ``carrying(_:)-(_)``.
    @inlinable
    static func carrying<Argument, Result>(
        _ body: @escaping @Sendable (Argument) -> Result
    ) -> @Sendable (Argument) -> Result {
        guard let captured = capture() else { return body }
        return { argument in captured.bind { body(argument) } }
    }

    /// The form for a lazy body, which takes its resolver. Its own overload, not the generic one:
    /// passing a closure as `(Argument) throws -> Result` wraps it in a reabstraction thunk and the
    /// result in another (an allocation each) even where the call is specialized; a closure that
    /// takes an object and returns nothing needs none.
    @inlinable
    static func carrying<Target: AnyObject>(
        _ body: @escaping @Sendable (Target) throws -> Void
    ) -> @Sendable (Target) throws -> Void {
        guard let captured = capture() else { return body }
        return { target in try captured.bind { try body(target) } }
    }

    /// The form for a closure without arguments (`onCancel`).
    @inlinable
    static func carrying(_ body: @escaping @Sendable () -> Void) -> @Sendable () -> Void {
        guard let captured = capture() else { return body }
        return { captured.bind { body() } }
    }
}
