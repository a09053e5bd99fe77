import ActorPromiseExecutors

extension Promise {
    /// Maps every element to a promise, at most `maxConcurrency` at a time, and collects the
    /// values in input order.
    ///
    /// With `maxConcurrency: 1` the elements are processed in series: the next transform starts
    /// when the previous promise is fulfilled. The first rejection rejects the result, starts no
    /// further transforms and stops waiting for the ones running: a running promise that nobody
    /// else waits for is cancelled, and so is its work (B7). Cancelling the result, or the last
    /// branch or awaiter that wanted it, does the same.
    /// Empty input: `[]`.
    ///
    /// - Parameters:
    ///   - fileID: Where the returned promise is made, for diagnostics (filled in for you).
    ///   - line: The line of that site (filled in for you).
    ///   - elements: The inputs; read once, up front.
    ///   - maxConcurrency: How many transforms may be pending at once (at least 1).
    ///   - context: Where `transform` runs. Defaults to `WorkerPool.global`.
    ///   - progress: Where to report how many elements are done (see ``ProgressReporting``);
    ///     silent once the result is rejected or cancelled.
    ///   - transform: Starts the work for one element.
    /// - Returns: The values in input order, or the first rejection.
    /// - Complexity: O(*n*).
    public static func map<Element: Sendable>(
        _ elements: some Sequence<Element>,
        maxConcurrency: Int = 1,
        on context: any ExecutionContext = .global,
        progress: ProgressReporting? = nil,
        fileID: StaticString = #fileID,
        line: UInt = #line,
        _ transform: @escaping @Sendable (Element) throws -> Promise<Value>
    ) -> Promise<[Value]> {
        let elements = Array(elements)
        let reporter = progress.map { ProgressReporter(total: elements.count, reporting: $0) }
        let driver = MapDriver(
            elements, maxConcurrency: max(1, maxConcurrency), context: context, progress: reporter, fileID: fileID, line: line,
            transform: transform)
        driver.startMore()
        return driver.promise
    }
}

/// Runs a bounded number of transforms at once and collects their values in order.
final class MapDriver<Element: Sendable, Value: Sendable>: Sendable {
    private let elements: [Element]
    private let maxConcurrency: Int
    private let context: any ExecutionContext
    private let transform: @Sendable (Element) throws -> Promise<Value>
    private let progress: ProgressReporter?
    private let state: LockedState<Progress>
    let promise: Promise<[Value]>
    private let resolver: Resolver<[Value]>

    /// How far the batch is.
    private struct Progress: Sendable {
        var values: [Value?]
        var next = 0
        var running: [Int: Promise<Value>] = [:]
        var runningCount = 0
        var remaining: Int
        var finished = false
    }

    init(_ elements: [Element], maxConcurrency: Int, context: any ExecutionContext, progress: ProgressReporter?,
         fileID: StaticString, line: UInt, transform: @escaping @Sendable (Element) throws -> Promise<Value>) {
        self.progress = progress
        self.elements = elements
        self.maxConcurrency = maxConcurrency
        self.context = context
        self.transform = PromiseTaskLocals.carrying(transform)
        self.state = LockedState(Progress(values: [Value?](repeating: nil, count: elements.count), remaining: elements.count))
        (promise, resolver) = Promise<[Value]>.pending(fileID: fileID, line: line)
        resolver.onCancel { [self] in fail(PromiseError.cancelled()) }
        if elements.isEmpty { resolver.fulfill([]) }
    }

    /// Starts transforms while there is room.
    func startMore() {
        while true {
            let started: Int? = state.withLock { state in
                guard !state.finished, state.next < elements.count, state.runningCount < maxConcurrency else { return nil }
                state.next += 1
                state.runningCount += 1
                return state.next - 1
            }
            guard let index = started else { return }
            let element = elements[index]
            let transform = transform
            // `work` follows the promise the transform returns; cancelling `work` stops the
            // transform from starting, or tells the returned promise it lost this dependent.
            let work = Promise<Void>().then(on: context) { _ in try transform(element) }
            if !track(index, work) { work.cancel() }
            work.observe { [self] outcome in finish(index, outcome) }
        }
    }

    /// Records a running transform, so that a failure can cancel it; `false` once finished.
    private func track(_ index: Int, _ work: Promise<Value>) -> Bool {
        state.withLock { state in
            guard !state.finished else { return false }
            state.running[index] = work
            return true
        }
    }

    private func finish(_ index: Int, _ outcome: Outcome<Value>) {
        switch outcome {
        case .failure(let error):
            fail(error)
        case .success(let value):
            let next = state.withLock { state -> Next in
                guard !state.finished else { return .ignore }
                state.values[index] = value
                state.running[index] = nil
                state.runningCount -= 1
                state.remaining -= 1
                guard state.remaining == 0 else { return .startMore }
                state.finished = true
                return .fulfill(state.values.map { $0! })
            }
            if case .ignore = next { return }
            progress?.itemCompleted()
            switch next {
            case .fulfill(let collected): resolver.fulfill(collected)
            case .startMore: startMore()
            case .ignore: break
            }
        }
    }

    /// What a finished transform leads to.
    private enum Next {
        /// The batch had already finished (failed or cancelled).
        case ignore
        /// Room for the next transform.
        case startMore
        /// Every transform is done: the values in input order.
        case fulfill([Value])
    }

    private func fail(_ error: any Error) {
        let cancelled: [Promise<Value>]? = state.withLock { state in
            guard !state.finished else { return nil }
            state.finished = true
            defer { state.running = [:] }
            return Array(state.running.values)
        }
        guard let cancelled else { return }
        progress?.stop()
        resolver.reject(error)
        for promise in cancelled { promise.cancel() }
    }
}
