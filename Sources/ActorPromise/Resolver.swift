import Synchronization

/// The write side of a promise: the one handle that can fulfil, reject or resolve it.
///
/// Hand the ``promise`` to callers and keep the resolver with the work. Every method may be
/// called from any thread, any number of times: the first settlement wins and later ones are
/// ignored (R1).
///
/// If the last reference to a resolver goes away while its promise is still pending, the promise
/// is rejected with ``PromiseError/Code/abandoned`` — observers learn that no value will ever
/// come instead of waiting forever — and ``PromiseDiagnostics/abandonmentHandler`` is told
/// (R8), with the site where the promise was made in debug builds.
public final class Resolver<Value: Sendable>: Sendable {
    // One reference and nothing else, so the resolver takes malloc's smallest block. Whether it
    // has sent a settlement, and the creation site, the state actor knows: `abandon` settles only
    // a promise that is still pending and follows nothing, and the site is the promise's own
    // (debug builds).
    @usableFromInline let core: PromiseCore<Value>

    @usableFromInline
    init(core: PromiseCore<Value>) {
        self.core = core
    }

    deinit {
        // Settled already: nothing to do, and no generic code runs. Otherwise the state actor
        // decides — a settlement or an adoption this resolver sent may still be parked at its
        // gate, ahead of the abandonment, and then wins.
        guard core.isPending else { return }
        abandon()
    }

    /// Rejects the promise this resolver was dropped without settling, unless a settlement or an
    /// adoption reaches it first. Out of line: `deinit` runs unspecialized, and building the
    /// operation there made every resolver's release look up generic metadata, settled or not.
    @inline(never)
    private func abandon() {
        core.abandon()
    }

    /// The promise this resolver settles.
    public var promise: Promise<Value> { Promise(core: core) }

    /// Whether the promise has been cancelled (observers of a cancelled promise no longer want the
    /// value, so long-running work may stop early). `false` once the promise settled otherwise.
    public var isCancelled: Bool { if case .failure(let error)? = core.settledOutcome { error.isCancellation } else { false } }

    /// Whether the promise is still pending.
    public var isPending: Bool { core.isPending }

    /// Fulfils the promise with `value`; ignored if it has already settled.
    @inlinable
    public func fulfill(_ value: Value) {
        #if DEBUG
        noteSettlementForTestRuntime()
        #endif
        core.settle(.success(value))
    }

    /// Rejects the promise with `error`; ignored if it has already settled.
    ///
    /// The trace of the rejection (``PromiseTrace``) begins at the call site, unless `error` is
    /// the one a handler running here was handed, whose trace goes on.
    ///
    /// - Parameters:
    ///   - error: The error.
    ///   - fileID: Where the promise is rejected, for its trace (filled in for you).
    ///   - line: The line of that site (filled in for you).
    @inlinable
    public func reject(_ error: any Error, fileID: StaticString = #fileID, line: UInt = #line) {
        #if DEBUG
        noteSettlementForTestRuntime()
        #endif
        core.settle(.failure(error), cause: .rejected(PromiseSite(fileID: fileID, line: line, operation: .reject)))
    }

    /// Rejects the promise with `error`: ``reject(_:fileID:line:)``, kept for code that passes
    /// `reject` as a function.
    ///
    /// - Parameter error: The error.
    @_disfavoredOverload @inlinable
    public func reject(_ error: any Error) {
        reject(error, fileID: #fileID, line: #line)
    }

    /// Settles the promise with `result`; ignored if it has already settled.
    ///
    /// - Parameters:
    ///   - result: The value or the error.
    ///   - fileID: Where the promise is settled, for the trace of a failure (filled in for you).
    ///   - line: The line of that site (filled in for you).
    @inlinable
    public func resolve(_ result: Result<Value, some Error>, fileID: StaticString = #fileID, line: UInt = #line) {
        #if DEBUG
        noteSettlementForTestRuntime()
        #endif
        core.settle(result.mapError { $0 as any Error }, cause: .rejected(PromiseSite(fileID: fileID, line: line, operation: .resolve)))
    }

    /// Settles the promise with `result`: ``resolve(_:fileID:line:)``, kept for code that passes
    /// `resolve` as a function.
    ///
    /// - Parameter result: The value or the error.
    @_disfavoredOverload @inlinable
    public func resolve(_ result: Result<Value, some Error>) {
        resolve(result, fileID: #fileID, line: #line)
    }

    /// Settles the promise with `result`; a failure carries `trace` on, as `site` names it (R16):
    /// for combinators that hand an input's rejection to their result. Called while traces are on.
    @usableFromInline
    func resolve(_ result: Outcome<Value>, carryingOn trace: TraceNode?, as site: PromiseSite) {
        #if DEBUG
        noteSettlementForTestRuntime()
        #endif
        core.settle(result, carryingOn: trace, as: site)
    }

    /// Rejects the promise with an error its work's body threw (R16: the trace says so).
    package func rejectFromBody(_ error: any Error) {
        reject(error, cause: .bodyThrew)
    }

    /// Rejects the promise with `error`, whose trace begins as `cause` says (R16).
    @usableFromInline
    func reject(_ error: any Error, cause: TraceCause) {
        #if DEBUG
        noteSettlementForTestRuntime()
        #endif
        core.settle(.failure(error), cause: cause)
    }

    #if DEBUG
    /// Tells the test runtime this promise was made under, if the settlement comes from code it
    /// does not drive (another thread, an SDK's queue) while the promise is pending: work the
    /// runtime could not see, which its clock may have overtaken (debug builds only).
    @usableFromInline
    func noteSettlementForTestRuntime() {
        guard let link = core.madeUnder, core.isPending, !link.isDriving else { return }
        link.tracker?.settledFromOutside("the promise made at \(core.siteText ?? "an unrecorded site")")
    }
    #endif

    /// Makes the promise follow `other`: it settles as `other` settles (Promises/A+ §2.3.2).
    ///
    /// Resolving a promise with itself rejects it with ``PromiseError/Code/selfResolution``.
    @inlinable
    public func resolve(with other: Promise<Value>) {
        core.adopt(other.core)
    }

    /// Registers `handler` to run once if the promise is cancelled while pending — the place to
    /// stop the underlying work (R6).
    ///
    /// The handler runs on the thread that cancels. If the promise was already cancelled while
    /// pending, it runs at once, on the calling thread, before this call returns; if it settled
    /// any other way, it never runs. A later call replaces an earlier handler that has not run.
    ///
    /// - Parameter handler: Stops the underlying work. Keep it short; it must not block.
    public func onCancel(_ handler: @escaping @Sendable () -> Void) {
        if core.wasCancelledWhilePending {
            handler()
            return
        }
        core.addCancelHandler(PromiseTaskLocals.carrying(handler))
    }
}

extension Resolver where Value == Void {
    /// Fulfils a `Void` promise.
    public func fulfill() { fulfill(()) }
}

extension Resolver: CustomDebugStringConvertible {
    /// The resolver and the state of its promise: `Resolver<Int> of Promise<Int> pending, made at
    /// Loader.swift:42, 1 observer`.
    public var debugDescription: String { "Resolver<\(Value.self)> of " + core.describe(as: "Promise") }
}

/// A lazy body, as stored in the promise's hook store (see ``ErasedClosure``) until the promise is
/// first observed (R10).
@usableFromInline struct LazyBody<Value: Sendable> {
    @usableFromInline let run: @Sendable (Resolver<Value>) throws -> Void
    @inlinable init(_ run: @escaping @Sendable (Resolver<Value>) throws -> Void) { self.run = run }
}

extension StateActor where Machine == PromiseStateMachine<Value> {
    /// Takes the lazy body out of the hook store and runs it with a fresh resolver; a thrown error
    /// rejects the promise (R10). Called once, by the lazy link's runner.
    @inlinable
    nonisolated func runLazyBody() {
        let body = link.takeBody(as: LazyBody<Value>.self).run
        notePending(.resolver)
        let resolver = Resolver(core: self)
        do {
            try body(resolver)
        } catch {
            resolver.reject(error, cause: .bodyThrew)
        }
    }
}
