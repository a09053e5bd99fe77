import Testing
import Dispatch
@testable import ActorPromise

/// What a handler — a `whenComplete` callback in particular — gets when its context is released,
/// suspended, stopped or has its operations cancelled before the handler runs (L1, B5). The
/// answers are in the Execution contexts article, *When a context does not run a handler*.
@Suite("L1 B5 handlers whose context is released, suspended, stopped or cancelled", .serialized)
struct DroppedHandlerTests {
    /// A promise settled with 9, a whenComplete on `context` reporting into the returned promise.
    static func observe(on context: any ExecutionContext) -> (reported: Promise<Result<Int, any Error>>, calls: Locked<Int>) {
        let (reported, report) = Promise<Result<Int, any Error>>.pending()
        let calls = Locked(0)
        Promise(value: 9).whenComplete(on: context) { result in
            calls.increment()
            report.fulfill(result)
        }
        return (reported, calls)
    }

    @Test("L1 a serial queue released with the callback queued runs it, with the outcome")
    func releasedSerialQueue() async throws {
        let gate = DispatchSemaphore(value: 0)
        var queue: SerialQueue? = SerialQueue(label: "dropped.serial")
        queue!.async { gate.wait() }
        let (reported, calls) = Self.observe(on: queue!)
        queue = nil
        gate.signal()
        #expect(try await reported.value.get() == 9)
        #expect(calls.current == 1)
    }

    @Test("L1 a suspended operation executor runs the callback when resumed, or when released")
    func suspendedOperationExecutor() async throws {
        let kept = OperationExecutor(label: "dropped.kept")
        kept.suspend()
        let (first, _) = Self.observe(on: kept)
        #expect(kept.queuedCount == 1, "it waits while the executor is suspended")
        kept.resume()
        #expect(try await first.value.get() == 9)

        var released: OperationExecutor? = OperationExecutor(label: "dropped.released")
        released!.suspend()
        let (second, _) = Self.observe(on: released!)
        released = nil   // nobody can resume it any more: it resumes itself
        #expect(try await second.value.get() == 9)
    }

    @Test("L1 a stopped run-loop thread drops the callback: never called, reported as abandoned; a then is rejected")
    func stoppedRunLoop() async throws {
        let loop = RunLoopThread(name: "dropped.loop", startsThread: false)
        let (_, calls) = Self.observe(on: loop)
        let derived = Promise(value: 1).then(on: loop) { $0 + 1 }
        // The loop drops its queued handlers inside `stop()`, on this thread: the reports made
        // there are this test's (other suites report drops of their own meanwhile).
        let reports = AbandonmentLog.recording(tag: "stopped run loop") { loop.stop() }
        let error = await #expect(throws: PromiseError.self) { try await derived.value }
        #expect(error?.code == .abandoned)
        #expect(error?.handlerDropped == true)
        #expect(calls.current == 0)
        #expect(reports.filter(\.handlerDropped).count == 2, "both drops were reported")
    }

    @Test("E3 cancelling an operation executor's queued work cancels a then; a whenComplete there is not called, and no drop is reported")
    func cancelledOperations() async throws {
        let executor = OperationExecutor(label: "dropped.cancel")
        executor.suspend()
        let (_, calls) = Self.observe(on: executor)
        let derived = Promise(value: 1).then(on: executor) { $0 + 1 }
        // The executor tells each cancelled operation so inside this call, on this thread.
        let reports = AbandonmentLog.recording(tag: "cancelled operations") { executor.cancelAllOperations() }
        executor.resume()
        let error = await #expect(throws: PromiseError.self) { try await derived.value }
        #expect(error?.code == .cancelled)
        try await CancelledBranchReleaseTests.drain(executor)
        #expect(calls.current == 0)
        // (The callback's own resolver, released with it, abandons the promise it was to fulfil:
        // that report is R8's, not a dropped handler's.)
        #expect(reports.filter(\.handlerDropped).isEmpty, "you cancelled it: not a drop")
    }
}
