import Testing
import Dispatch
import Foundation
import ActorPromise

/// Nothing a cancelled branch held outlives it, on any context (E3, L1): a context that drops a
/// cancelled promise's queued handler frees the handler and what it captures at once.
@Suite("E3 L1 a cancelled branch's handler is freed on every context")
struct CancelledBranchReleaseTests {
    /// The abandonments these tests provoke are recorded, not printed as warnings.
    init() { AbandonmentLog.install() }

    /// Captured by a handler; holds the handler's own promise, as a view model holding its
    /// request would: a cycle that only freeing the handler breaks.
    final class Holder: @unchecked Sendable {
        // Safety: written once, before the handler can run, and never read concurrently.
        var promise: Promise<Int>?
    }

    static func contexts() -> [(String, any ExecutionContext)] {
        [
            ("operation executor", OperationExecutor(label: "release.op", maxConcurrentCount: 1)),
            ("wide operation executor", OperationExecutor(label: "release.op4", maxConcurrentCount: 4)),
            ("serial queue", SerialQueue(label: "release.serial")),
            ("concurrent queue", ConcurrentQueue(label: "release.concurrent")),
            ("run-loop thread", RunLoopThread(name: "release.runloop")),
            ("pool", WorkerPool.global),
            ("dispatch queue", DispatchQueue(label: "release.dispatch")),
            ("operation queue", OperationQueue()),
        ]
    }

    @Test("E3 a handler of a branch cancelled before it ran is freed, with its captures",
          arguments: 0..<8)
    func cancelledBeforeRun(contextIndex: Int) async throws {
        let (name, context) = Self.contexts()[contextIndex]
        let (root, resolver) = Promise<Int>.pending()
        var holder: Holder? = Holder()
        let weakHolder = WeakReference(holder!)
        let child = root.then(on: context) { [holder] value in value + (holder == nil ? 0 : 1) }
        holder!.promise = child
        holder = nil
        root.cancel()
        let error = await #expect(throws: PromiseError.self) { try await child.value }
        #expect(error?.code == .cancelled)
        // Whatever the context queued has been handled once a later job on it ran.
        try await Self.drain(context)
        #expect(weakHolder.object == nil, "\(name) kept the cancelled handler's captures")
        withExtendedLifetime(resolver) {}
    }

    /// Returns once a job submitted to `context` now has run.
    static func drain(_ context: any ExecutionContext) async throws {
        let (done, resolver) = Promise<Void>.pending()
        context.submit(ClosureWorkItem { resolver.fulfill() })
        try await done.value
    }
}

/// A cancel that travels through a chain of adoptions (a recursive loop) does not grow the stack
/// (R3, R5).
@Suite("R3 R5 cancelling a deep recursive loop in constant stack")
struct DeepCancelTests {
    /// The abandonments these tests provoke are recorded, not printed as warnings.
    init() { AbandonmentLog.install() }

    /// A polling loop written the natural way: each step is a promise settled elsewhere, and the
    /// loop goes on by returning the next level from `flatMap`. The step at `depth` stays pending;
    /// `reached` is fulfilled when it is made, and its `onCancel` fulfils `stepCancelled`.
    /// `made`, if given, is told each level as it is made.
    static func loop(
        _ level: Int, depth: Int, reached: Resolver<Void>, stepCancelled: Resolver<Void>,
        inFlight: Locked<Resolver<Bool>?>, made: (@Sendable (Int, Promise<Int>) -> Void)? = nil
    ) -> Promise<Int> {
        let step: Promise<Bool>
        if level < depth {
            step = Promise(value: false)
        } else {
            step = Promise { resolver in
                resolver.onCancel { stepCancelled.fulfill() }
                inFlight.withLock { $0 = resolver }   // the work in flight keeps its resolver
                reached.fulfill()
            }
        }
        let next = step.flatMap { done in
            done ? Promise(value: level) : loop(
                level + 1, depth: depth, reached: reached, stepCancelled: stepCancelled, inFlight: inFlight, made: made)
        }
        made?(level, next)
        return next
    }

    /// A 50,000-level loop whose innermost step is in flight: the outermost promise, the slot
    /// that holds the step's resolver (the work in flight), and a promise its `onCancel` fulfils.
    static func deepLoop() async throws -> (Promise<Int>, Locked<Resolver<Bool>?>, Promise<Void>) {
        let (reachedInner, reached) = Promise<Void>.pending()
        let (cancelledStep, stepCancelled) = Promise<Void>.pending()
        let inFlight = Locked<Resolver<Bool>?>(nil)
        let outer = loop(0, depth: 50_000, reached: reached, stepCancelled: stepCancelled, inFlight: inFlight)
        try await reachedInner.value
        return (outer, inFlight, cancelledStep)
    }

    @Test("R5 cancelling a 50,000-level loop on a 512 KiB thread reaches the step in flight")
    func cancelDeepLoop() async throws {
        let (outer, inFlight, cancelledStep) = try await Self.deepLoop()
        await onThread(stackSize: 512 * 1024) { outer.cancel() }
        try await cancelledStep.value
        let error = await #expect(throws: PromiseError.self) { try await outer.value }
        #expect(error?.code == .cancelled)
        inFlight.withLock { $0 = nil }
    }

    @Test("R1 fulfilling the step in flight of a 50,000-level loop on a 512 KiB thread settles every level, without recursion")
    func settleDeepLoop() async throws {
        let (outer, inFlight, _) = try await Self.deepLoop()
        let step = try #require(inFlight.withLock { $0.take() })
        await onThread(stackSize: 512 * 1024) { step.fulfill(true) }
        #expect(try await outer.value == 50_000)
    }

    @Test("R8 releasing the step in flight of a 50,000-level loop on a 512 KiB thread rejects every level as abandoned")
    func abandonDeepLoop() async throws {
        let (outer, inFlight, _) = try await Self.deepLoop()
        await onThread(stackSize: 512 * 1024) { inFlight.withLock { $0 = nil } }
        let error = await #expect(throws: PromiseError.self) { try await outer.value }
        #expect(error?.code == .abandoned)
    }
}
