import Testing
import ActorPromise

/// `Promise.map(_:maxConcurrency:…)` reads its input lazily, as PromiseKit's
/// `when(fulfilled: iterator, concurrently:)` does: the next element only when a slot frees,
/// nothing after the first failure or a cancel.
@Suite("map over a lazy sequence: read as slots free")
struct MapLazySequenceTests {
    /// An endless generator that counts how many elements were read.
    static func generator(_ reads: Locked<Int>) -> AnyIterator<Int> {
        AnyIterator { reads.increment() - 1 }
    }

    /// Transforms whose promises the test settles, one resolver per element read.
    final class Pending: Sendable {
        let resolvers = Locked<[Int: Resolver<Int>]>([:])
        let started = Tally()

        func transform(_ element: Int) -> Promise<Int> {
            let (promise, resolver) = Promise<Int>.pending()
            resolvers.withLock { $0[element] = resolver }
            started.increment()
            return promise
        }

        func settle(_ element: Int, with value: Int) { resolvers.withLock { $0[element] }?.fulfill(value) }
        func fail(_ element: Int) { resolvers.withLock { $0[element] }?.reject(TestError(id: element)) }
    }

    @Test("an endless generator: only maxConcurrency elements read until a slot frees")
    func readsOnlyWhatFits() async throws {
        let reads = Locked(0)
        let pending = Pending()
        let result = Promise<Int>.map(Self.generator(reads), maxConcurrency: 3, on: .inline) {
            pending.transform($0)
        }
        #expect(reads.current == 3, "three slots, three elements read")
        pending.settle(1, with: 10)
        #expect(reads.current == 4, "one slot freed, one more element read")
        pending.fail(0)
        await #expect(throws: TestError(id: 0)) { try await result.value }
        let afterFailure = reads.current
        pending.settle(2, with: 20)
        pending.settle(3, with: 30)
        #expect(reads.current == afterFailure, "nothing is read after the first failure")
    }

    @Test("cancelling the result stops reading")
    func cancelStopsReading() async throws {
        let reads = Locked(0)
        let pending = Pending()
        let result = Promise<Int>.map(Self.generator(reads), maxConcurrency: 2, on: .inline) { pending.transform($0) }
        #expect(reads.current == 2)
        result.cancel()
        pending.settle(0, with: 0)
        pending.settle(1, with: 1)
        #expect(reads.current == 2, "nothing is read after the cancel")
        await #expect(throws: PromiseError.self) { try await result.value }
    }

    @Test("a generator that ends: the values of every element read, in order; progress counts what was read")
    func endsWithNil() async throws {
        var next = 0
        let countdown = AnyIterator<Int> {
            defer { next += 1 }
            return next < 50 ? next : nil
        }
        let reports = Locked<[BatchProgress]>([])
        let (lastReport, reported) = Promise<Void>.pending()
        let values = try await Promise<Int>.map(
            countdown, maxConcurrency: 4,
            progress: .on(.inline) { progress in
                reports.withLock { $0.append(progress) }
                if progress.completed == 50 { reported.fulfill() }
            }
        ) { Promise(value: $0 * 2) }.value
        #expect(values == (0..<50).map { $0 * 2 })
        try await lastReport.value
        #expect(reports.current.last.map { "\($0)" } == "50/50")
        #expect(reports.current.allSatisfy { $0.completed <= $0.total })
    }

    @Test("a collection's progress has its count as the total from the first report")
    func collectionTotal() async throws {
        let totals = Locked<Set<Int>>([])
        _ = try await Promise<Int>.map(Array(0..<10), maxConcurrency: 2, progress: .on(.inline) { progress in
            totals.withLock { _ = $0.insert(progress.total) }
        }) { Promise(value: $0) }.value
        #expect(totals.current == [10])
    }

    @Test("a range of 20,000, eight at a time, on the pool; an endless range stopped by a failure")
    func ranges() async throws {
        let values = try await Promise<Int>.map(0..<20_000, maxConcurrency: 8) {
            Promise(value: $0 * 3 + 1)
        }.value
        #expect(values.count == 20_000)
        #expect(values.first == 1 && values.last == 59_998)
        let endless = Promise<Int>.map(1..., maxConcurrency: 4) { element in
            element == 100 ? Promise(error: TestError(id: element)) : Promise(value: element)
        }
        await #expect(throws: TestError(id: 100)) { try await endless.value }
    }

    @MainActor final class Gallery {
        var photos = [1, 2, 3]
        func scale(_ photo: Int) -> Int { photo * 2 }

        /// A lazy sequence over the model's own state is not `Sendable`: it is read at once, in
        /// the model's isolation.
        func scaled() -> Promise<[Int]> {
            Promise<Int>.map(photos.lazy.map { self.scale($0) }, maxConcurrency: 2) { Promise(value: $0) }
        }
    }

    @Test("every kind of input compiles and maps: arrays, sets, strides, iterators, lazy sequences in main-actor code")
    @MainActor
    func inputKinds() async throws {
        #expect(try await Gallery().scaled().value == [2, 4, 6])
        #expect(try await Promise<Int>.map([1, 2].makeIterator(), maxConcurrency: 2) { Promise(value: $0) }.value == [1, 2])
        #expect(try await Promise<Int>.map(stride(from: 0, to: 6, by: 2)) { Promise(value: $0) }.value == [0, 2, 4])
        #expect(try await Promise<Int>.map((0..<3).lazy.map { $0 + 1 }) { Promise(value: $0) }.value == [1, 2, 3])
        #expect(try await Promise<Void>.map(Set([7])) { _ in Promise<Void>() }.value.count == 1)
    }
}

/// The `AsyncSequence` form: one task reads the sequence, awaiting the next element only when a
/// slot frees.
@Suite("map over an AsyncSequence")
struct MapAsyncSequenceTests {
    /// Counts its reads; after `limit` elements it ends, or throws if `failure` is set; an element
    /// it has none for yet waits (in `Task.sleep`) until its task is cancelled.
    struct Counted: AsyncSequence, Sendable {
        let reads: Tally
        var limit = Int.max
        var failure: TestError?
        var available = Int.max
        let cancelled = Tally()

        struct AsyncIterator: AsyncIteratorProtocol {
            let sequence: Counted
            mutating func next() async throws -> Int? {
                let index = sequence.reads.increment() - 1
                if index >= sequence.available {
                    do { try await Task.sleep(for: .seconds(3_600)) } catch { sequence.cancelled.increment(); throw error }
                }
                if index >= sequence.limit {
                    if let failure = sequence.failure { throw failure }
                    return nil
                }
                return index
            }
        }
        func makeAsyncIterator() -> AsyncIterator { AsyncIterator(sequence: self) }
    }

    @Test("an AsyncStream: every value, in input order")
    func stream() async throws {
        let numbers = AsyncStream<Int> { continuation in
            for number in 0..<100 { continuation.yield(number) }
            continuation.finish()
        }
        let values = try await Promise<Int>.map(numbers, maxConcurrency: 4) { Promise(value: $0 * 2) }.value
        #expect(values == (0..<100).map { $0 * 2 })
    }

    @Test("the next element is read only when a slot frees")
    func readsWhenSlotsFree() async throws {
        let reads = Tally()
        let pending = MapLazySequenceTests.Pending()
        let result = Promise<Int>.map(Counted(reads: reads, limit: 5), maxConcurrency: 2, on: .inline) { pending.transform($0) }
        try await pending.started.reach(2)
        #expect(reads.current == 2, "two slots: two elements read, and the reader waits")
        for element in 0..<5 {
            try await pending.started.reach(element + 1)
            pending.settle(element, with: element)
        }
        #expect(try await result.value == [0, 1, 2, 3, 4])
        #expect(reads.current == 6, "five elements and the end")
    }

    @Test("an error the sequence throws rejects the result")
    func sequenceThrows() async throws {
        let result = Promise<Int>.map(Counted(reads: Tally(), limit: 3, failure: TestError(id: 5)), maxConcurrency: 2) {
            Promise(value: $0)
        }
        await #expect(throws: TestError(id: 5)) { try await result.value }
    }

    @Test("cancelling the result cancels the read under way, and nothing more is read")
    func cancelStopsTheReader() async throws {
        let reads = Tally()
        let sequence = Counted(reads: reads, available: 1)
        let cancelled = sequence.cancelled
        let result = Promise<Int>.map(sequence, maxConcurrency: 4) { Promise(value: $0) }
        try await reads.reach(2)   // the second read waits for an element
        result.cancel()
        try await cancelled.reach(1)   // the read under way saw its task cancelled
        #expect(reads.current == 2)
        await #expect(throws: PromiseError.self) { try await result.value }
    }
}
