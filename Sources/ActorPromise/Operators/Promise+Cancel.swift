extension Promise {
    /// Cancels this promise and every promise derived from it (R5).
    ///
    /// If this promise is pending, it is rejected with ``PromiseError/Code/cancelled`` (carrying
    /// `reason`) and its ``Resolver/onCancel(_:)`` handler runs. Whether or not it was pending, the
    /// cancellation is forwarded to all of its children, and theirs, so every pending promise
    /// below it is cancelled; promises that already settled keep their outcome. The parent is
    /// not cancelled while anything else waits for it; if this was its last waiting dependent, it
    /// cancels itself and stops its work (interest, R7/B7), unless it was created with
    /// `tracksInterest: false`. A second `cancel` does nothing.
    ///
    /// Cancellation is a rejection, and everyone who observes errors learns of it (R5b): at every
    /// depth of the cancelled branch, `catch`, `recover`, the error half of a two-handler `then`,
    /// `tap`, `ensure`, `ensureThen`, `whenComplete` and awaiters run (or throw) once with the
    /// cancellation error, whether they were registered before or after this call. What such a
    /// handler returns is ignored: a cancelled promise stays cancelled. Value-only handlers
    /// (`then`, `map`, `flatMap`) that have not started are skipped, as for any rejection. The
    /// whole branch is cancelled before any of those handlers runs.
    ///
    /// The trace of the cancellation (``PromiseTrace``) begins at the call site.
    ///
    /// - Parameters:
    ///   - reason: An error saying why, available as ``PromiseError/reason``.
    ///   - fileID: Where the cancellation is asked for, for its trace (filled in for you).
    ///   - line: The line of that site (filled in for you).
    public func cancel(reason: (any Error)? = nil, fileID: StaticString = #fileID, line: UInt = #line) {
        core.cancel(reason: reason, origin: tracesAreOn ? .cancelled(PromiseSite(fileID: fileID, line: line, operation: .cancel)) : nil)
    }

    /// Cancels this promise and every promise derived from it: ``cancel(reason:fileID:line:)``,
    /// kept for code that passes `cancel` as a function.
    ///
    /// - Parameter reason: An error saying why, available as ``PromiseError/reason``.
    @_disfavoredOverload
    public func cancel(reason: (any Error)? = nil) {
        cancel(reason: reason, fileID: #fileID, line: #line)
    }

    /// The promise this one was derived from, or `nil` for a root promise.
    public var parent: AnyPromise? {
        core.parentNode.map(AnyPromise.init)
    }

    /// The first ancestor that has no parent: the promise created by the underlying work.
    public var root: AnyPromise {
        var node: any PromiseNode = core
        while let parent = node.parentNode { node = parent }
        return AnyPromise(node)
    }
}
