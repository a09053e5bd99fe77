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
final class MapDriver<Element: Sendable, Value: Sendable>: @unchecked Sendable {
    // Safety (`@unchecked Sendable`): the `var`s are guarded by `lock`; the `let`s are immutable.
    private let lock = ConditionLock()
    private let elements: [Element]
    private let maxConcurrency: Int
    private let context: any ExecutionContext
    private let transform: @Sendable (Element) throws -> Promise<Value>
    private let progress: ProgressReporter?
    private var values: [Value?]
    private var next = 0
    private var running: [Int: Promise<Value>] = [:]
    private var runningCount = 0
    private var remaining: Int
    private var finished = false
    let promise: Promise<[Value]>
    private let resolver: Resolver<[Value]>

    init(_ elements: [Element], maxConcurrency: Int, context: any ExecutionContext, progress: ProgressReporter?,
         fileID: StaticString, line: UInt, transform: @escaping @Sendable (Element) throws -> Promise<Value>) {
        self.progress = progress
        self.elements = elements
        self.maxConcurrency = maxConcurrency
        self.context = context
        self.transform = PromiseTaskLocals.carrying(transform)
        self.values = [Value?](repeating: nil, count: elements.count)
        self.remaining = elements.count
        (promise, resolver) = Promise<[Value]>.pending(fileID: fileID, line: line)
        resolver.onCancel { [self] in fail(PromiseError.cancelled()) }
        if elements.isEmpty { resolver.fulfill([]) }
    }

    /// Starts transforms while there is room.
    func startMore() {
        while true {
            lock.lock()
            guard !finished, next < elements.count, runningCount < maxConcurrency else {
                lock.unlock()
                return
            }
            let index = next
            next += 1
            runningCount += 1
            lock.unlock()
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
        lock.lock()
        defer { lock.unlock() }
        guard !finished else { return false }
        running[index] = work
        return true
    }

    private func finish(_ index: Int, _ outcome: Outcome<Value>) {
        switch outcome {
        case .failure(let error):
            fail(error)
        case .success(let value):
            lock.lock()
            guard !finished else {
                lock.unlock()
                return
            }
            values[index] = value
            running[index] = nil
            runningCount -= 1
            remaining -= 1
            let done = remaining == 0
            if done { finished = true }
            let collected = done ? values.map { $0! } : []
            lock.unlock()
            progress?.itemCompleted()
            if done { resolver.fulfill(collected) } else { startMore() }
        }
    }

    private func fail(_ error: any Error) {
        lock.lock()
        guard !finished else {
            lock.unlock()
            return
        }
        finished = true
        let cancelled = Array(running.values)
        running = [:]
        lock.unlock()
        progress?.stop()
        resolver.reject(error)
        for promise in cancelled { promise.cancel() }
    }
}
