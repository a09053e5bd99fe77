@testable import ActorPromise
import Dispatch
import Foundation
import Synchronization
import Testing

/// `Self.snapshot()`, read as a user reads it: the lines of this file's
/// promises, the edges between them, the picture. The snapshot holds the whole process, where
/// other suites run meanwhile, so each test keeps it to the promises made in this file (its line
/// limit would otherwise summarise them among the others'); the suite runs one test at a time.
@Suite("Pending snapshot: every pending promise, where it was made and what it waits on", .serialized)
struct PendingSnapshotTests {
    /// A service that keeps the completion handlers it is given, to answer them when told.
    final class HeldCompletions: Sendable {
        private let held = Mutex<[@Sendable (Result<String, any Error>) -> Void]>([])
        func fetch(completion: @escaping @Sendable (Result<String, any Error>) -> Void) {
            held.withLock { $0.append(completion) }
        }
        func answerAll() {
            for completion in held.withLock({ $0 }) { completion(.success("answer")) }
            held.withLock { $0 = [] }
        }
    }

    /// Switches tracking on: a release build's tests need it (debug builds track already). It
    /// stays on: suites run at once, and one that switched it off would take it from another.
    static func trackPending() {
        PromiseDiagnostics.tracksPending = true
    }

    /// The CPU time the calling thread has used.
    static func threadCPUTime() -> Duration {
        var now = timespec()
        clock_gettime(CLOCK_THREAD_CPUTIME_ID, &now)
        return .seconds(Int64(now.tv_sec)) + .nanoseconds(Int64(now.tv_nsec))
    }

    /// The pending promises made in this file.
    static func snapshot() -> PendingSnapshot {
        let snapshot = PromiseDiagnostics.pendingSnapshot()
        return snapshot.keeping { snapshot.site($0).file.description.hasSuffix("/PendingSnapshotTests.swift") }
    }

    /// The lines of the snapshot's text made at this file's `line`.
    static func lines(_ snapshot: PendingSnapshot, at line: Int) -> [String] {
        snapshot.description.split(separator: "\n").map(String.init)
            .filter { $0.contains("PendingSnapshotTests.swift:\(line) ") || $0.contains("PendingSnapshotTests.swift:\(line),") }
    }

    /// The one line made at `line`, or a failed expectation.
    static func line(_ snapshot: PendingSnapshot, at line: Int, sourceLocation: SourceLocation = #_sourceLocation) -> String {
        let found = lines(snapshot, at: line)
        #expect(found.count == 1, "lines made at \(line): \(found)\n\(snapshot)", sourceLocation: sourceLocation)
        return found.first ?? ""
    }

    /// The column a line's promise starts at: deeper in the forest, further right.
    static func depth(_ line: String) -> Int {
        line.prefix { !$0.isLetter }.count
    }

    @Test("a chain on a resolver, a timeout on its timer, a zip on one input, an async body and a completion handler: each with its site and what it waits on")
    func eachKindOfWait() async throws {
        Self.trackPending()
        let service = HeldCompletions()

        let rootLine = #line + 1
        let (root, rootResolver) = Promise<Int>.pending()
        let thenLine = #line + 1
        let chain = root.then { $0 + 1 }
        let sourceLine = #line + 1
        let (source, sourceResolver) = Promise<Int>.pending()
        let timeoutLine = #line + 1
        let timed = source.timeout(after: .seconds(3600))
        let inputLine = #line + 1
        let (input, inputResolver) = Promise<Int>.pending()
        let zipLine = #line + 1
        let zipped = zip(input, Promise(value: "settled"))
        let taskLine = #line + 1
        let task = Promise<Int> { try await Task.sleep(for: .seconds(3600)); return 1 }
        let adapterLine = #line + 1
        let adapter = Promise<String> { resolver in service.fetch(completion: resolver.completion()) }
        let settledLine = #line + 1
        let settled = Promise(value: 1).then(on: .inline) { $0 + 1 }
        _ = try await settled.value

        let snapshot = Self.snapshot()
        let rootText = Self.line(snapshot, at: rootLine)
        #expect(rootText.contains("Promise<Int> made at ActorPromiseTests/PendingSnapshotTests.swift:\(rootLine),"))
        #expect(rootText.contains("waits for its resolver (held by the work)"))
        let thenText = Self.line(snapshot, at: thenLine)
        #expect(thenText.contains("from then") && thenText.contains("waits for its parent"))
        #expect(Self.depth(thenText) > Self.depth(rootText), "the derived promise hangs under its parent")
        let timeoutText = Self.line(snapshot, at: timeoutLine)
        #expect(timeoutText.contains("from timeout") && timeoutText.contains("waits for the promise above, or its timeout (3600 s, due in"))
        #expect(Self.depth(timeoutText) > Self.depth(Self.line(snapshot, at: sourceLine)))
        let zipText = Self.line(snapshot, at: zipLine)
        #expect(zipText.contains("Promise<(Int, String)> from zip") && zipText.contains("waits for 1 of 2 inputs: the promise above"))
        #expect(Self.depth(zipText) > Self.depth(Self.line(snapshot, at: inputLine)))
        #expect(Self.line(snapshot, at: taskLine).contains("waits for its task (running)"))
        #expect(Self.line(snapshot, at: adapterLine).contains("waits for its completion handler (not yet called)"))
        #expect(Self.lines(snapshot, at: settledLine).isEmpty, "a settled promise is not listed")

        let dot = snapshot.dot
        #expect(dot.hasPrefix("digraph pending {") && dot.hasSuffix("}\n"))
        for line in [rootLine, thenLine, timeoutLine, zipLine, taskLine, adapterLine] {
            #expect(dot.contains("PendingSnapshotTests.swift:\(line)"), "node for line \(line)")
        }
        #expect(!dot.contains("PendingSnapshotTests.swift:\(settledLine)"))
        for shape in ["invhouse", "circle", "hexagon", "cds"] { #expect(dot.contains("shape=\(shape)"), "\(shape)") }
        #expect(dot.contains("[label=\"parent\"]") && dot.contains("[label=\"source\"]") && dot.contains("[label=\"input\"]"))

        rootResolver.fulfill(1)
        sourceResolver.fulfill(1)
        inputResolver.fulfill(1)
        task.cancel()
        service.answerAll()
        _ = try await (chain.value, timed.value, zipped.value, adapter.value)
        let after = Self.snapshot()
        for line in [rootLine, thenLine, sourceLine, timeoutLine, inputLine, zipLine, taskLine, adapterLine] {
            #expect(Self.lines(after, at: line).isEmpty, "settled: line \(line)\n\(after)")
        }
    }

    @Test("a promise released while pending leaves the snapshot; a lazy one nobody observed says so")
    func releasedAndLazy() {
        Self.trackPending()
        let lazyLine = #line + 1
        var lazy: Promise<Int>? = Promise<Int>.lazy { $0.fulfill(1) }
        #expect(Self.line(Self.snapshot(), at: lazyLine).contains("waits for its lazy body"))
        lazy = nil
        #expect(Self.lines(Self.snapshot(), at: lazyLine).isEmpty)
        _ = lazy
    }

    @Test("a promise that follows another hangs under it; olderThan keeps the old ones")
    func followsAndAge() async throws {
        Self.trackPending()
        let (inner, innerResolver) = Promise<Int>.pending()
        let outerLine = #line + 1
        let outer = Promise(value: 1).then(on: .inline) { _ in inner }
        let text = Self.line(Self.snapshot(), at: outerLine)
        #expect(text.contains("follows the promise above"), "\(text)")
        #expect(Self.lines(Self.snapshot().olderThan(.seconds(3600)), at: outerLine).isEmpty)
        #expect(Self.lines(Self.snapshot().olderThan(.zero), at: outerLine).count == 1)
        innerResolver.fulfill(2)
        #expect(try await outer.value == 2)
    }

    @Test("a handler queued on a suspended OperationExecutor: the promise waits for its handler there")
    func queuedHandler() async throws {
        Self.trackPending()
        let executor = OperationExecutor(label: "suspended", maxConcurrentCount: 1)
        executor.suspend()
        let handlerLine = #line + 1
        let handled = Promise(value: 1).then(on: executor) { $0 + 1 }
        #expect(Self.line(Self.snapshot(), at: handlerLine)
            .contains("waits for its handler, queued or running on OperationExecutor"))
        executor.resume()
        #expect(try await handled.value == 2)
    }

    @Test("a chain of 10,000 links is a few lines: the first link, a line for the middle, the last")
    func longChain() async throws {
        Self.trackPending()
        let (root, resolver) = Promise<Int>.pending()
        var last = root
        let linkLine = #line + 1
        for _ in 0 ..< 10_000 { last = last.then(on: .inline) { $0 + 1 } }
        let snapshot = Self.snapshot()
        let text = snapshot.description
        #expect(text.split(separator: "\n").count <= PendingSnapshot.lineLimit)
        #expect(text.contains("… 9,998 more links of this chain, made at ActorPromiseTests/PendingSnapshotTests.swift:\(linkLine)"), "\(text)")
        #expect(Self.lines(snapshot, at: linkLine).count == 2)
        resolver.fulfill(0)
        #expect(try await last.value == 10_000)
    }

    @Test("a million pending promises: the snapshot stays within its bound and takes under a second of its thread's time", TestSettings.longTest)
    func millionPending() async throws {
        Self.trackPending()
        var resolvers: [Resolver<Int>] = []
        var ends: [Promise<Int>] = []
        for _ in 0 ..< 1_000 {
            let (root, resolver) = Promise<Int>.pending()
            var last = root
            for _ in 0 ..< 999 { last = last.then(on: .inline) { $0 + 1 } }
            resolvers.append(resolver)
            ends.append(last)
        }
        // The snapshot's own thread's CPU time, the least of three: the long tests run beside
        // every other suite on a shared machine, where wall time measures the others too, and the
        // first snapshot also pays for the first touch of the memory it takes.
        var took = Duration.seconds(3600)
        var snapshot: PendingSnapshot?
        var text = ""
        var dot = ""
        for _ in 0 ..< 3 {
            let started = Self.threadCPUTime()
            snapshot = PromiseDiagnostics.pendingSnapshot()
            text = snapshot!.description
            dot = snapshot!.dot
            took = min(took, Self.threadCPUTime() - started)
        }
        #expect(snapshot!.count >= 1_000_000)
        #expect(text.split(separator: "\n").count <= PendingSnapshot.lineLimit)
        #expect(dot.split(separator: "\n").count <= 4 * PendingSnapshot.lineLimit)
        #expect(took < .seconds(1), "the bound the Diagnostics article states; took \(took)")
        for resolver in resolvers { resolver.fulfill(0) }
        for end in ends { #expect(try await end.value == 999) }
    }

    @Test("snapshots taken while other threads make, follow, settle and release promises: every one within its bound, none kept alive")
    func snapshotsUnderChurn() async throws {
        Self.trackPending()
        let rounds = TestSettings.rounds("ACTORPROMISE_SNAPSHOT_ROUNDS", quick: 500, long: 20_000)
        let done = Atomic<Int>(0)
        let snapshots = Atomic<Int>(0)
        let overLimit = Atomic<Int>(0)
        // Threads of their own: loops that never suspend would hold the few threads that every
        // other suite's tasks (the cooperative pool) or blocking waits (dispatch's global queues)
        // need.
        let group = DispatchGroup()
        func onThread(_ body: @escaping @Sendable () -> Void) {
            group.enter()
            Thread { body(); group.leave() }.start()
        }
        for _ in 0 ..< 4 {
            onThread {
                for round in 0 ..< rounds {
                    let (root, resolver) = Promise<Int>.pending()
                    let (inner, innerResolver) = Promise<Int>.pending()
                    let followed = root.then(on: .inline) { _ in inner }.map(on: .inline) { $0 + 1 }
                    let unobserved = Promise<Int>.lazy { $0.fulfill(0) }
                    resolver.fulfill(round)
                    innerResolver.fulfill(round)
                    _ = (followed, unobserved)
                }
                done.add(1, ordering: .releasing)
            }
        }
        onThread {
            while done.load(ordering: .acquiring) < 4 || snapshots.load(ordering: .relaxed) == 0 {
                let snapshot = PromiseDiagnostics.pendingSnapshot()
                if snapshot.description.split(separator: "\n").count > PendingSnapshot.lineLimit { overLimit.add(1, ordering: .relaxed) }
                _ = snapshot.dot
                snapshots.add(1, ordering: .relaxed)
            }
        }
        await withCheckedContinuation { finished in group.notify(queue: .global()) { finished.resume() } }
        #expect(snapshots.load(ordering: .relaxed) > 0)
        #expect(overLimit.load(ordering: .relaxed) == 0)
        let left = Self.snapshot()
        #expect(left.count == 0, "every promise of the churn settled or was released:\n\(left)")
    }
}
