import ActorPromiseExecutors

// Failure traces as users see them, asked for by error or by promise, and the switch.
extension PromiseTrace {
    /// The path of `error`, the failure being handled: call it from a `catch`, `recover` or
    /// `tap` handler with the error it was handed, or after `try await promise.value` (or
    /// `outcome`) gave `error` — as caught, before it is wrapped or cast to another type.
    ///
    /// - Parameter error: The error, as the handler or the `catch` clause received it.
    /// - Returns: The trace, or `nil` when traces were off, or `error` did not come from a
    ///   promise (or was wrapped). After an `await`, the answer is certain in the `catch` that
    ///   follows it, before the task awaits anything else; later, it is found while `error` is
    ///   among the last 32 failures thrown to awaiters in the process.
    public static func of(_ error: any Error) -> PromiseTrace? {
        let identity = ErrorIdentity(error)
        if let handed = HandledFailure.current, ErrorIdentity(handed.error) == identity {
            return PromiseTrace(handed.trace, handledBy: "\(handed.handler.operationText) (\(handed.handler.text ?? "site unknown"))")
        }
        if let awaited = AwaitedFailure.current, ErrorIdentity(awaited.error) == identity {
            return PromiseTrace(awaited.trace, handledBy: "await")
        }
        if let (trace, handler) = RecentFailures.find(error) { return PromiseTrace(trace, handledBy: handler) }
        return nil
    }

    /// Whether promises record failure traces. On by default in debug builds, off in release
    /// builds, where switching it on (for a staging build, or while chasing a report) costs an
    /// allocation per promise made and per failure; the Performance article has the figures.
    ///
    /// Promises made while it is off have no site in a release build: their entries say
    /// "site unknown". A failure that happens while it is off has no trace.
    public static var isEnabled: Bool {
        get { traceSwitch.load(ordering: .relaxed) }
        set {
            traceSwitch.store(newValue, ordering: .relaxed)
            #if !DEBUG
            // Release builds keep sites only while traces or pending tracking are on: operators
            // then capture them.
            PromiseTaskLocals.keepSites(newValue || PendingRegistry.isOn)
            #endif
        }
    }
}

extension Promise {
    /// The path of this promise's rejection or cancellation, if it failed while traces were on
    /// (see ``PromiseTrace``); `nil` while it is pending, and for a fulfilled promise that no
    /// cancellation reached.
    public var failureTrace: PromiseTrace? {
        core.traceNode.map { PromiseTrace($0, handledBy: nil) }
    }

    /// Remembers the trace of a failure an awaiter was given, for ``PromiseTrace/of(_:)``: the
    /// promise's own, or, when the awaiting task was cancelled, one that starts there.
    @usableFromInline
    package func rememberAwaitedFailure(_ error: any Error) {
        let trace: TraceNode
        if case .failure(let own)? = core.settledOutcome, ErrorIdentity(own) == ErrorIdentity(error), let node = core.traceNode {
            trace = node
        } else {
            trace = TraceNode(cause: .taskCancelled, site: core.traceSite, isCancellation: true)
        }
        AwaitedFailure.remember(error, trace: trace)
        RecentFailures.remember(error, trace: trace, handler: "await")
    }
}
