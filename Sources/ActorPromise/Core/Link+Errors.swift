// Links for the operators that observe errors and outcomes (`catch`, `recover`, `ensure`, `tap`).
// Each stores the user's closure as written, so deriving such a promise allocates nothing but the
// promise; written with `Link.outcome`, the closure that adapts the user's to an outcome handler
// would capture it (one allocation more per operator). A catch policy picks one of two runners,
// so that no runner captures it.

/// `recover` to a value.
@usableFromInline struct ErrorBody<Out> {
    @usableFromInline let run: @Sendable (any Error) throws -> Out
    @inlinable init(_ run: @escaping @Sendable (any Error) throws -> Out) { self.run = run }
}

/// `catch`.
@usableFromInline struct VoidErrorBody {
    @usableFromInline let run: @Sendable (any Error) throws -> Void
    @inlinable init(_ run: @escaping @Sendable (any Error) throws -> Void) { self.run = run }
}

/// `ensure`.
@usableFromInline struct EffectBody {
    @usableFromInline let run: @Sendable () -> Void
    @inlinable init(_ run: @escaping @Sendable () -> Void) { self.run = run }
}

/// `tap`.
@usableFromInline struct TapBody<In> {
    @usableFromInline let run: @Sendable (Result<In, any Error>) -> Void
    @inlinable init(_ run: @escaping @Sendable (Result<In, any Error>) -> Void) { self.run = run }
}

extension Link {
    /// A link whose runner depends on a catch policy: the runner for `policy`, so that no runner
    /// captures the policy (a capture would allocate).
    @inlinable
    init(
        context: consuming any ExecutionContext, taskLocals: CapturedTaskLocals?, body: ErasedClosure, policy: CatchPolicy,
        allErrors: @escaping @Sendable (AnyObject) -> Void, exceptCancellation: @escaping @Sendable (AnyObject) -> Void
    ) {
        self.init(
            context: context, taskLocals: taskLocals, body: body,
            runner: policy == .allErrors ? allErrors : exceptCancellation)
    }

    /// Replaces a rejection that `policy` handles with `body`'s value; passes the rest on.
    @inlinable
    static func recover<Out: Sendable>(
        context: consuming any ExecutionContext, taskLocals: CapturedTaskLocals?, policy: CatchPolicy,
        body: consuming @escaping @Sendable (any Error) throws -> Out
    ) -> Link {
        Link(
            context: context, taskLocals: taskLocals, body: ErasedClosure(ErrorBody(body)), policy: policy,
            allErrors: { runRecover($0, Out.self, .allErrors) },
            exceptCancellation: { runRecover($0, Out.self, .allErrorsExceptCancellation) })
    }

    @inlinable @inline(__always)
    static func runRecover<Out: Sendable>(_ object: AnyObject, _: Out.Type, _ policy: CatchPolicy) {
        runRecovery(object, policy, as: ErrorBody<Out>.self) { body, error in .settle(.success(try body.run(error))) }
    }

    /// The run shared by both recoveries: a fulfilment, or a rejection `policy` does not handle,
    /// passes on; a handled rejection becomes the step `recover` makes of the stored handler, or
    /// the error it throws.
    @inlinable @inline(__always)
    static func runRecovery<Out: Sendable, Body>(
        _ object: AnyObject, _ policy: CatchPolicy, as _: Body.Type, _ recover: (Body, any Error) throws -> LinkStep<Out>
    ) {
        Link.promise(object, as: Out.self).runHandler(Out.self, as: Body.self) { child, body in
            child.runOutcomeHandler(Out.self) { outcome in
                guard case .failure(let error) = outcome, policy.handles(error) else { return .settle(outcome) }
                do { return try recover(body, error) } catch { return .settle(.failure(error)) }
            }
        }
    }

    /// Calls `body` with a rejection that `policy` handles; the child is fulfilled with `()`
    /// unless `body` throws, or the rejection is passed on.
    @inlinable
    static func `catch`<In: Sendable>(
        context: consuming any ExecutionContext, taskLocals: CapturedTaskLocals?, policy: CatchPolicy, in _: In.Type,
        body: consuming @escaping @Sendable (any Error) throws -> Void
    ) -> Link {
        Link(
            context: context, taskLocals: taskLocals, body: ErasedClosure(VoidErrorBody(body)), policy: policy,
            allErrors: { runCatch($0, In.self, .allErrors) },
            exceptCancellation: { runCatch($0, In.self, .allErrorsExceptCancellation) })
    }

    @inlinable @inline(__always)
    static func runCatch<In: Sendable>(_ object: AnyObject, _: In.Type, _ policy: CatchPolicy) {
        Link.promise(object, as: Void.self).runHandler(In.self, as: VoidErrorBody.self) { child, body in
            child.runOutcomeHandler(In.self) { outcome in
                guard case .failure(let error) = outcome else { return .settle(.success(())) }
                guard policy.handles(error) else { return .settle(.failure(error)) }
                do { try body.run(error) } catch { return .settle(.failure(error)) }
                return .settle(.success(()))
            }
        }
    }

    /// Calls `body`, then passes the outcome on.
    @inlinable
    static func ensure<Out: Sendable>(
        context: consuming any ExecutionContext, taskLocals: CapturedTaskLocals?, in _: Out.Type, body: consuming @escaping @Sendable () -> Void
    ) -> Link {
        Link(context: context, taskLocals: taskLocals, body: ErasedClosure(EffectBody(body)), runnerFor: Out.self) { promise in
            promise.runHandler(Out.self, as: EffectBody.self) { child, body in
                child.runOutcomeHandler(Out.self) { outcome in
                    body.run()
                    return .settle(outcome)
                }
            }
        }
    }

    /// Calls `body` with the outcome, then passes it on.
    @inlinable
    static func tap<Out: Sendable>(
        context: consuming any ExecutionContext, taskLocals: CapturedTaskLocals?, body: consuming @escaping @Sendable (Result<Out, any Error>) -> Void
    ) -> Link {
        Link(context: context, taskLocals: taskLocals, body: ErasedClosure(TapBody(body)), runnerFor: Out.self) { promise in
            promise.runHandler(Out.self, as: TapBody<Out>.self) { child, body in
                child.runOutcomeHandler(Out.self) { outcome in
                    body.run(outcome)
                    return .settle(outcome)
                }
            }
        }
    }
}
