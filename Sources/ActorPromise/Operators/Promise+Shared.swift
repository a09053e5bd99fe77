import ActorPromiseExecutors

extension Promise {
    /// A handle on this promise's outcome to keep and hand out later, whose takers cannot stop
    /// the work by walking away (B7).
    ///
    /// A promise cancels itself, and so stops its work, once every promise derived from it has
    /// been cancelled (interest, R7). That is right for a request one screen waits for, and wrong
    /// for a result a cache keeps for whoever asks next: when today's only taker is cancelled, the
    /// request would stop. Hand out `shared()` instead: the shared promise counts as one dependent
    /// of this promise that never loses interest, and neither it nor the promises derived from it
    /// cancel themselves. Its outcome is this promise's.
    ///
    /// ```swift
    /// let avatar = loadAvatar(url).shared()   // kept in the cache
    /// let shown = avatar.then(on: .main) { image in view.image = image }
    /// shown.cancel()                          // the view went away: the download goes on
    /// ```
    ///
    /// Cancelling the shared promise itself (`avatar.cancel()`) is still a cancel: it rejects the
    /// shared promise and everything derived from it, and this promise then stops its work if
    /// nobody else waits for it.
    ///
    /// - Parameters:
    ///   - fileID: Where the shared promise is made, for diagnostics (filled in for you).
    ///   - line: The line of that site (filled in for you).
    /// - Returns: A child of this promise that settles as it does (on the settling thread).
    public func shared(fileID: StaticString = #fileID, line: UInt = #line) -> Promise<Value> {
        derive(on: .inline, tracksInterest: false, site: PromiseSite(fileID: fileID, line: line, operation: .shared)) { .settle($0) }
    }
}
