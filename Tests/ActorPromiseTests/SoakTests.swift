import Testing
import Foundation
import ActorPromise
import Bridge

/// Resident memory of this process, in bytes (Linux: /proc/self/statm).
func residentBytes() -> Int {
    #if os(Linux)
    guard let text = try? String(contentsOfFile: "/proc/self/statm", encoding: .utf8) else { return 0 }
    let fields = text.split(separator: " ")
    guard fields.count > 1, let pages = Int(fields[1]) else { return 0 }
    return pages * Int(sysconf(Int32(_SC_PAGESIZE)))
    #else
    return 0
    #endif
}

/// L4: contexts and timers created and released in bulk leave no thread and no memory behind.
///
/// Tolerances, stated: the thread count must come back to at most 8 above where it started (other
/// suites run in parallel and start run-loop threads of their own); the timer thread's queue to at
/// most 100 entries above (other suites' short timers); resident memory may grow by at most 48 MB
/// over the whole soak (the suites running beside it allocate too, so this bound only catches
/// gross leaks). Without the lifecycle fixes the soak leaves 10,000 threads and 100,000 timer
/// entries behind (about 10 MB once cancelled closures are freed, which is why the queue is counted
/// rather than inferred from resident memory).
@Suite("L4 soak: creating and releasing contexts and timers in bulk")
struct SoakTests {
    /// One round: 10,000 of each context (every tenth with work queued) and 100,000 timers.
    func round() async throws {
        let count = 10_000
        let done = Countdown(count / 10 * 4)
        for index in 0..<count {
            let serial = SerialQueue(label: "soak")
            let concurrent = ConcurrentQueue(label: "soak", width: 2)
            let operations = OperationExecutor(label: "soak", maxConcurrentCount: 2)
            let loop = RunLoopThread(name: "soak")
            if index % 10 == 0 {
                serial.async { done.tick() }
                concurrent.async { done.tick() }
                operations.addOperation { done.tick() }
                loop.async { done.tick() }
            }
        }
        try await done.wait()
        for _ in 0..<100_000 {
            let (promise, resolver) = Promise<Int>.pending()
            let guarded = promise.timeout(after: .seconds(3600))
            resolver.fulfill(1)
            _ = try await guarded.value
        }
    }

    @Test("L4 threads and resident memory come back to where they started")
    func soak() async throws {
        try await MemoryHeavy.exclusively { try await measuredSoak() }
    }

    func measuredSoak() async throws {
        // A first, smaller warm-up so that the pool, the timer thread and the allocator's arenas
        // exist before the baseline is taken.
        let warm = Promise(value: 1).timeout(after: .seconds(1))
        _ = try await warm.value
        let threadsBefore = threadCount()
        let timersBefore = TimerThread.shared.pendingCount
        let memoryBefore = residentBytes()
        try await round()
        #expect(TimerThread.shared.pendingCount < timersBefore + 100)
        #expect(await threadCount(settlesAtMost: threadsBefore + 8),
                "threads: \(threadsBefore) before, \(threadCount()) after")
        let grown = residentBytes() - memoryBefore
        #expect(grown < 48 << 20, "resident memory grew by \(grown >> 20) MB")
    }
}
