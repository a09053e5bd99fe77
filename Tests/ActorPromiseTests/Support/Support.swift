import ActorPromiseExecutors
import Dispatch
import Foundation
import ActorPromise

/// A lock-protected value for tests: the library's own `LockedState` (pthread-based, so
/// ThreadSanitizer models it exactly).
typealias Locked<Value: Sendable> = LockedState<Value>

extension LockedState {
    /// The value now, read under the lock.
    var current: State { withLock { $0 } }
}

extension LockedState where State == [Int] {
    func append(_ element: Int) { withLock { $0.append(element) } }
}

extension LockedState where State == Int {
    @discardableResult
    func increment() -> Int { withLock { $0 += 1; return $0 } }
}

struct TestError: Error, Equatable {
    var id = 0
}

/// An identity for the calling thread, valid for comparisons made without an `await` between.
func currentThreadID() -> UInt {
    UInt(bitPattern: Int(bitPattern: UnsafeRawPointer(Unmanaged.passUnretained(ThreadState.current).toOpaque())))
}

/// A lock for tests that must not overlap others of their kind, held across `await`s.
///
/// - ``memoryHeavy``: tests that allocate hundreds of megabytes, or start threads, run one at a
///   time, so that the tests that measure resident memory or count the process's threads (the
///   soak test, L3) never run beside them.
/// - ``mainThread``: a blocking `wait()` on the main thread runs every pending main-context
///   handler while it waits — inside the waiting test's task — so a test that checks that
///   main-actor handlers run without a task must not overlap it (Swift Testing runs suites in
///   parallel).
actor AsyncMutex {
    static let memoryHeavy = AsyncMutex()
    static let mainThread = AsyncMutex()
    /// Tests that switch the collapsing of adoption chains off (process-wide), and tests that
    /// count on it.
    static let collapsing = AsyncMutex()

    private var busy = false
    private var waiters: [CheckedContinuation<Void, Never>] = []

    private func acquire() async {
        guard busy else {
            busy = true
            return
        }
        await withCheckedContinuation { waiters.append($0) }
    }

    private func release() {
        if waiters.isEmpty { busy = false } else { waiters.removeFirst().resume() }
    }

    /// Runs `body` while no other `withLock` of this mutex runs.
    nonisolated func withLock<T>(_ body: () async throws -> T) async throws -> T {
        await acquire()
        do {
            let result = try await body()
            await release()
            return result
        } catch {
            await release()
            throw error
        }
    }
}

/// Registers 20 handlers with `handler` in four batches of five, each batch from another thread,
/// one batch after another; the promise is fulfilled after batch `settleAfter` (0 = before any).
/// Waits for every handler's promise. For the registration-order tests (R2).
func registerInBatches(
    settleAfter: Int, _ handler: @escaping @Sendable (Promise<Int>, Int) -> Promise<Void>
) async throws {
    let (promise, resolver) = Promise<Int>.pending()
    let collected = Locked<[Promise<Void>]>([])
    if settleAfter == 0 { resolver.fulfill(0) }
    for batch in 0..<4 {
        let registered = Countdown(1)
        DispatchQueue.global().async {
            for index in batch * 5..<batch * 5 + 5 {
                let done = handler(promise, index)
                collected.withLock { $0.append(done) }
            }
            registered.tick()
        }
        try await registered.wait()
        if settleAfter == batch + 1 { resolver.fulfill(0) }
    }
    for done in collected.current { try await done.value }
}
