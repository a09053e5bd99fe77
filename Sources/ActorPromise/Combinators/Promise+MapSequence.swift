import ActorPromiseExecutors

extension Promise {
    /// Maps every element to a promise, at most `maxConcurrency` at a time, and collects the
    /// values in input order.
    ///
    /// A `Sendable` sequence — an array, a range, `1...`, a sequence type of your own whose
    /// elements are built on demand — is read lazily, one element whenever a slot frees, and never
    /// copied; a sequence that never ends is fine, as long as a transform fails or the result is
    /// cancelled at some point. With `maxConcurrency: 1` the elements are processed in series: the
    /// next element is read and transformed when the previous promise is fulfilled. The first
    /// rejection rejects the result, reads no further element, starts no further transform and
    /// stops waiting for the ones running: a running promise that nobody else waits for is
    /// cancelled, and so is its work (B7). Cancelling the result, or the last branch or awaiter
    /// that wanted it, does the same. Empty input: `[]`.
    ///
    /// A sequence that is not `Sendable` (a `lazy.map` whose closure reads an actor's state, say)
    /// is read in full when you call this, on your thread and in your isolation, then mapped the
    /// same way; a generator that must be read lazily is passed as its iterator (the form below
    /// that takes an `IteratorProtocol`).
    ///
    /// - Parameters:
    ///   - fileID: Where the returned promise is made, for diagnostics (filled in for you).
    ///   - line: The line of that site (filled in for you).
    ///   - elements: The inputs, read one at a time as slots free (never concurrently).
    ///   - maxConcurrency: How many transforms may be pending at once (at least 1).
    ///   - context: Where `transform` runs. Defaults to `WorkerPool.global`.
    ///   - progress: Where to report how many elements are done (see ``ProgressReporting``);
    ///     silent once the result is rejected or cancelled. Its total is the collection's count,
    ///     or, for another sequence, the elements read so far.
    ///   - transform: Starts the work for one element.
    /// - Returns: The values in input order, or the first rejection.
    /// - Complexity: O(*n*); memory beyond the values: O(`maxConcurrency`).
    @_disfavoredOverload
    public static func map<Elements: Sequence & Sendable>(
        _ elements: Elements,
        maxConcurrency: Int = 1,
        on context: any ExecutionContext = .global,
        progress: ProgressReporting? = nil,
        fileID: StaticString = #fileID,
        line: UInt = #line,
        _ transform: @escaping @Sendable (Elements.Element) throws -> Promise<Value>
    ) -> Promise<[Value]> where Elements.Element: Sendable {
        mapReading(
            LockedIterator(elements.makeIterator()), knownCount: elements.underestimatedCount,
            maxConcurrency: maxConcurrency, context: context, progress: progress, fileID: fileID, line: line,
            transform: transform)
    }

    /// Maps every element to a promise with a main-actor `transform`, at most `maxConcurrency` at
    /// a time, and collects the values in input order (R9); otherwise as the form that takes any
    /// context.
    ///
    /// - Parameters:
    ///   - fileID: Where the returned promise is made, for diagnostics (filled in for you).
    ///   - line: The line of that site (filled in for you).
    ///   - elements: The inputs, read one at a time as slots free.
    ///   - maxConcurrency: How many transforms may be pending at once (at least 1).
    ///   - context: `.main`.
    ///   - progress: Where to report how many elements are done.
    ///   - transform: Starts the work for one element, isolated to the main actor.
    /// - Returns: The values in input order, or the first rejection.
    public static func map<Elements: Sequence & Sendable>(
        _ elements: Elements,
        maxConcurrency: Int = 1,
        on context: MainContext,
        progress: ProgressReporting? = nil,
        fileID: StaticString = #fileID,
        line: UInt = #line,
        _ transform: @escaping @MainActor @Sendable (Elements.Element) throws -> Promise<Value>
    ) -> Promise<[Value]> where Elements.Element: Sendable {
        map(
            elements, maxConcurrency: maxConcurrency, on: context as any ExecutionContext, progress: progress,
            fileID: fileID, line: line
        ) { element in try MainActor.assumeIsolated { try transform(element) } }
    }

    /// Maps every element an iterator produces to a promise, at most `maxConcurrency` at a time,
    /// and collects the values in input order — PromiseKit's `when(fulfilled: iterator,
    /// concurrently:)`.
    ///
    /// The iterator is advanced only when a slot frees, never concurrently, and not after the
    /// first failure or a cancel, so it may be a generator (`AnyIterator { … }`) that builds each
    /// element on demand and runs until it returns `nil`. Otherwise as the sequence form.
    ///
    /// - Parameters:
    ///   - fileID: Where the returned promise is made, for diagnostics (filled in for you).
    ///   - line: The line of that site (filled in for you).
    ///   - iterator: The inputs. The call takes it over (`sending`): advance it nowhere else.
    ///   - maxConcurrency: How many transforms may be pending at once (at least 1).
    ///   - context: Where `transform` runs. Defaults to `WorkerPool.global`.
    ///   - progress: Where to report how many elements are done; its total is the elements read so
    ///     far, final once the iterator has ended.
    ///   - transform: Starts the work for one element.
    /// - Returns: The values in input order, or the first rejection.
    /// - Complexity: O(*n*); memory beyond the values: O(`maxConcurrency`).
    public static func map<Element: Sendable>(
        _ iterator: sending some IteratorProtocol<Element>,
        maxConcurrency: Int = 1,
        on context: any ExecutionContext = .global,
        progress: ProgressReporting? = nil,
        fileID: StaticString = #fileID,
        line: UInt = #line,
        _ transform: @escaping @Sendable (Element) throws -> Promise<Value>
    ) -> Promise<[Value]> {
        mapReading(
            LockedIterator(iterator), knownCount: 0, maxConcurrency: maxConcurrency, context: context,
            progress: progress, fileID: fileID, line: line, transform: transform)
    }

    /// Maps the elements of an iterator that is also a `Sendable` sequence (`[1, 2].makeIterator()`),
    /// read lazily as either form would.
    ///
    /// - Parameters:
    ///   - fileID: Where the returned promise is made, for diagnostics (filled in for you).
    ///   - line: The line of that site (filled in for you).
    ///   - elements: The inputs, read one at a time as slots free.
    ///   - maxConcurrency: How many transforms may be pending at once (at least 1).
    ///   - context: Where `transform` runs. Defaults to `WorkerPool.global`.
    ///   - progress: Where to report how many elements are done.
    ///   - transform: Starts the work for one element.
    /// - Returns: The values in input order, or the first rejection.
    public static func map<Elements: Sequence & IteratorProtocol & Sendable>(
        _ elements: Elements,
        maxConcurrency: Int = 1,
        on context: any ExecutionContext = .global,
        progress: ProgressReporting? = nil,
        fileID: StaticString = #fileID,
        line: UInt = #line,
        _ transform: @escaping @Sendable (Elements.Element) throws -> Promise<Value>
    ) -> Promise<[Value]> where Elements.Element: Sendable {
        mapReading(
            LockedIterator(elements), knownCount: elements.underestimatedCount, maxConcurrency: maxConcurrency,
            context: context, progress: progress, fileID: fileID, line: line, transform: transform)
    }

    /// Maps the elements of a sequence that is not `Sendable`: read in full now, in the caller's
    /// isolation, then mapped as an array.
    ///
    /// - Parameters:
    ///   - fileID: Where the returned promise is made, for diagnostics (filled in for you).
    ///   - line: The line of that site (filled in for you).
    ///   - elements: The inputs, read when this is called.
    ///   - maxConcurrency: How many transforms may be pending at once (at least 1).
    ///   - context: Where `transform` runs. Defaults to `WorkerPool.global`.
    ///   - progress: Where to report how many elements are done.
    ///   - transform: Starts the work for one element.
    /// - Returns: The values in input order, or the first rejection.
    @_disfavoredOverload
    public static func map<Element: Sendable>(
        _ elements: some Sequence<Element>,
        maxConcurrency: Int = 1,
        on context: any ExecutionContext = .global,
        progress: ProgressReporting? = nil,
        fileID: StaticString = #fileID,
        line: UInt = #line,
        _ transform: @escaping @Sendable (Element) throws -> Promise<Value>
    ) -> Promise<[Value]> {
        map(
            Array(elements), maxConcurrency: maxConcurrency, on: context, progress: progress, fileID: fileID, line: line,
            transform)
    }

    private static func mapReading<Element: Sendable>(
        _ source: LockedIterator<Element>, knownCount: Int, maxConcurrency: Int, context: any ExecutionContext,
        progress: ProgressReporting?, fileID: StaticString, line: UInt,
        transform: @escaping @Sendable (Element) throws -> Promise<Value>
    ) -> Promise<[Value]> {
        let reporter = progress.map { ProgressReporter(total: knownCount, reporting: $0) }
        let driver = MapDriver(
            source, maxConcurrency: max(1, maxConcurrency), context: context, progress: reporter, fileID: fileID,
            line: line, transform: transform)
        driver.startMore()
        return driver.promise
    }
}

extension Promise {
    /// Maps every element of an asynchronous sequence to a promise, at most `maxConcurrency` at a
    /// time, and collects the values in input order.
    ///
    /// As the synchronous form, but the sequence is read by a task: the next element is awaited
    /// only when a slot frees. An error the sequence throws rejects the result like a failed
    /// transform. Cancelling the result (or its last waiter) cancels that task, so the read under
    /// way stops if the sequence honours cancellation, and no further element is read.
    ///
    /// - Parameters:
    ///   - fileID: Where the returned promise is made, for diagnostics (filled in for you).
    ///   - line: The line of that site (filled in for you).
    ///   - elements: The inputs, read one at a time as slots free, by one task. The call takes
    ///     them over (`sending`).
    ///   - maxConcurrency: How many transforms may be pending at once (at least 1).
    ///   - context: Where `transform` runs. Defaults to `WorkerPool.global`.
    ///   - transform: Starts the work for one element.
    /// - Returns: The values in input order, or the first rejection.
    /// - Complexity: O(*n*); memory beyond the values: O(`maxConcurrency`).
    public static func map<Input: AsyncSequence & SendableMetatype>(
        _ elements: sending Input,
        maxConcurrency: Int = 1,
        on context: any ExecutionContext = .global,
        fileID: StaticString = #fileID,
        line: UInt = #line,
        _ transform: @escaping @Sendable (Input.Element) throws -> Promise<Value>
    ) -> Promise<[Value]> where Input.Element: Sendable, Input.AsyncIterator: SendableMetatype {
        let driver = MapDriver(
            nil, maxConcurrency: max(1, maxConcurrency), context: context, progress: nil, fileID: fileID, line: line,
            transform: transform)
        let reader = Task {
            var iterator = elements.makeAsyncIterator()
            while await driver.awaitSlot() {
                do {
                    guard let element = try await iterator.next(isolation: nil) else { return driver.endOfInput() }
                    driver.start(element)
                } catch {
                    return driver.fail(error)
                }
            }
        }
        driver.onFinish { reader.cancel() }
        return driver.promise
    }
}

/// Runs a bounded number of transforms at once over elements it reads one at a time, and
/// collects their values in order.
final class MapDriver<Element: Sendable, Value: Sendable>: Sendable {
    /// The synchronous input; `nil` when a task reads an asynchronous sequence (``awaitSlot()``).
    private let source: LockedIterator<Element>?
    private let maxConcurrency: Int
    private let context: any ExecutionContext
    private let transform: @Sendable (Element) throws -> Promise<Value>
    private let progress: ProgressReporter?
    private let state = LockedState(Progress())
    let promise: Promise<[Value]>
    private let resolver: Resolver<[Value]>

    /// How far the batch is.
    private struct Progress: Sendable {
        /// One slot per element read, filled as its promise is fulfilled.
        var values: [Value?] = []
        var running: [Int: Promise<Value>] = [:]
        /// Slots taken: transforms running, and reads under way.
        var busy = 0
        var completed = 0
        /// The sequence has ended.
        var exhausted = false
        /// Fulfilled, rejected or cancelled: nothing more starts.
        var finished = false
        /// The reading task of an asynchronous input, waiting for a slot.
        var slotWaiter: CheckedContinuation<Bool, Never>?
        /// Runs once the batch has finished (stops the reading task).
        var onFinish: (@Sendable () -> Void)?

        /// The waiter to resume, if a slot is free or the batch finished.
        mutating func takeWaiterIfReady(maxConcurrency: Int) -> (CheckedContinuation<Bool, Never>, Bool)? {
            guard let waiter = slotWaiter, finished || busy < maxConcurrency else { return nil }
            slotWaiter = nil
            if !finished { busy += 1 }
            return (waiter, !finished)
        }

        /// Fulfils the batch if every element read is done and none is left.
        mutating func takeValuesIfDone() -> [Value]? {
            guard !finished, exhausted, busy == 0, completed == values.count else { return nil }
            finished = true
            return values.map { $0! }
        }
    }

    init(_ source: LockedIterator<Element>?, maxConcurrency: Int, context: any ExecutionContext, progress: ProgressReporter?,
         fileID: StaticString, line: UInt, transform: @escaping @Sendable (Element) throws -> Promise<Value>) {
        self.source = source
        self.progress = progress
        self.maxConcurrency = maxConcurrency
        self.context = context
        self.transform = PromiseTaskLocals.carrying(transform)
        (promise, resolver) = Promise<[Value]>.pending(fileID: fileID, line: line)
        resolver.onCancel { [self] in fail(PromiseError.cancelled()) }
    }

    /// Reads and starts elements while there is room: the synchronous input is read here; the
    /// reading task of an asynchronous one is woken if it waits for a slot.
    func startMore() {
        guard let source else {
            if let (waiter, hasRoom) = state.withLock({ $0.takeWaiterIfReady(maxConcurrency: maxConcurrency) }) {
                waiter.resume(returning: hasRoom)
            }
            return
        }
        while true {
            let hasRoom = state.withLock { state in
                guard !state.finished, !state.exhausted, state.busy < maxConcurrency else { return false }
                state.busy += 1
                return true
            }
            guard hasRoom else { return }
            // Elements are numbered in the order they are read, under the source's lock.
            let read = source.next { element in
                (element, state.withLock { state in
                    state.values.append(nil)
                    return state.values.count - 1
                })
            }
            guard let (element, index) = read else { return endOfInput() }
            progress?.grow(toAtLeast: index + 1)
            startTransform(element, index)
        }
    }

    /// Waits until a slot is free and takes it (`true`), or until the batch has finished
    /// (`false`). For the task that reads an asynchronous input.
    func awaitSlot() async -> Bool {
        await withCheckedContinuation { waiter in
            let ready = state.withLock { state in
                state.slotWaiter = waiter
                return state.takeWaiterIfReady(maxConcurrency: maxConcurrency)
            }
            if let (waiter, hasRoom) = ready { waiter.resume(returning: hasRoom) }
        }
    }

    /// Starts the transform of an element the reading task read, in the slot it took.
    func start(_ element: Element) {
        let index = state.withLock { state in
            state.values.append(nil)
            return state.values.count - 1
        }
        startTransform(element, index)
    }

    /// The input has ended; the slot taken for reading is free again.
    func endOfInput() {
        let values = state.withLock { state in
            state.busy -= 1
            state.exhausted = true
            return state.takeValuesIfDone()
        }
        if let values { finishing { resolver.fulfill(values) } }
    }

    /// Registers what to do once the batch has finished, at once if it already has.
    func onFinish(_ body: @escaping @Sendable () -> Void) {
        let finished = state.withLock { state in
            if !state.finished { state.onFinish = body }
            return state.finished
        }
        if finished { body() }
    }

    /// Settles the result with `settle`, then wakes a waiting reader (which stops) and runs the
    /// finish action.
    private func finishing(_ settle: () -> Void) {
        settle()
        let (waiter, action) = state.withLock { state in
            defer { state.slotWaiter = nil; state.onFinish = nil }
            return (state.slotWaiter, state.onFinish)
        }
        waiter?.resume(returning: false)
        action?()
    }

    private func startTransform(_ element: Element, _ index: Int) {
        do {
            let transform = transform
            // `work` follows the promise the transform returns; cancelling `work` stops the
            // transform from starting, or tells the returned promise it lost this dependent.
            let work = Promise<Void>().then(on: context) { _ in try transform(element) }
            if !track(index, work) { work.cancel() }
            promise.core.notePendingInputs(state.withLock { $0.running.values.map { ObjectIdentifier($0.core) } })
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
                state.busy -= 1
                state.completed += 1
                if let values = state.takeValuesIfDone() { return .fulfill(values) }
                return .startMore
            }
            if case .ignore = next { return }
            progress?.itemCompleted()
            switch next {
            case .fulfill(let collected): finishing { resolver.fulfill(collected) }
            case .startMore: startMore()
            case .ignore: break
            }
        }
    }

    /// What a finished transform leads to.
    private enum Next {
        /// The batch had already finished (failed or cancelled).
        case ignore
        /// Room for the next element.
        case startMore
        /// Every element is done: the values in input order.
        case fulfill([Value])
    }

    func fail(_ error: any Error) {
        let cancelled: [Promise<Value>]? = state.withLock { state in
            guard !state.finished else { return nil }
            state.finished = true
            defer { state.running = [:] }
            return Array(state.running.values)
        }
        guard let cancelled else { return }
        progress?.stop()
        finishing { resolver.reject(error) }
        for promise in cancelled { promise.cancel() }
    }
}
