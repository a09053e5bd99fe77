import Testing
import ActorPromiseTesting
@testable import ActorPromiseExecutors

/// The worker pool's wake-up rules, driven without threads, and then the pool itself under
/// bursts that leave its threads parked between them.
@Suite("Pool schedule")
struct PoolScheduleTests {
    typealias Job = WorkQueueTests.Item

    @Test("a submission wakes the worker parked longest, and one more for each job beyond the searchers")
    func wakesParkedLongestFirst() {
        var schedule = PoolSchedule(workerCount: 2)
        #expect(schedule.submit(Job(0)) == nil, "nobody is parked")
        guard case .run(let first) = schedule.next(for: 0, mayStartSearching: true) else {
            Issue.record("a queued job is taken first"); return
        }
        #expect((first as? Job)?.number == 0)
        #expect(schedule.next(for: 1, mayStartSearching: false).isPark)
        #expect(schedule.next(for: 0, mayStartSearching: false).isPark)
        #expect(schedule.parked == [1, 0])
        #expect(schedule.submit(Job(1)) == 1, "the worker that parked first wakes")
        #expect(schedule.searching == 1, "and counts as searching until it takes a job")
        #expect(schedule.submit(Job(2)) == 0, "two jobs, one searcher: the other worker wakes too")
        #expect(schedule.parked.isEmpty && schedule.searching == 2)
        guard case .run(let taken) = schedule.nextWhileSearching(for: 1, givingUp: false) else {
            Issue.record("the woken worker takes a job"); return
        }
        #expect((taken as? Job)?.number == 1)
        guard case .run(let last) = schedule.nextWhileSearching(for: 0, givingUp: false) else {
            Issue.record("the second woken worker takes the job left behind"); return
        }
        #expect((last as? Job)?.number == 2)
        #expect(schedule.searching == 0 && schedule.queue.isEmpty)
    }

    @Test("a searching worker covers one job: a burst wakes one parked worker per job beyond the searchers")
    func searchersCoverOneJobEach() {
        var schedule = PoolSchedule(workerCount: 4)
        #expect(schedule.next(for: 1, mayStartSearching: false).isPark)
        #expect(schedule.next(for: 2, mayStartSearching: false).isPark)
        #expect(schedule.next(for: 3, mayStartSearching: false).isPark)
        #expect(schedule.next(for: 0, mayStartSearching: true).isSearch)
        #expect(schedule.submit(Job(0)) == nil, "the searcher will take it")
        #expect(schedule.submit(Job(1)) == 1, "one job more than searchers")
        #expect(schedule.submit(Job(2)) == 2)
        #expect(schedule.submit(Job(3)) == 3)
        #expect(schedule.submit(Job(4)) == nil, "nobody left to wake")
        for worker in [1, 0, 3, 2] {
            guard case .run = schedule.nextWhileSearching(for: worker, givingUp: true) else {
                Issue.record("every searching worker takes a job"); return
            }
        }
        #expect(schedule.searching == 0 && schedule.queue.count == 1, "the fifth job waits for a running worker")
    }

    @Test("a worker searches only while the rest of the pool is idle, at most half of them at once; a searcher parks only with the queue empty")
    func searchersAreBounded() {
        var schedule = PoolSchedule(workerCount: 4)
        #expect(schedule.next(for: 0, mayStartSearching: true).isPark, "three workers still run")
        #expect(schedule.next(for: 1, mayStartSearching: true).isPark, "two workers still run")
        #expect(schedule.next(for: 2, mayStartSearching: false).isPark, "it may not search")
        #expect(schedule.next(for: 3, mayStartSearching: true).isSearch, "the rest of the pool is idle")
        #expect(schedule.nextWhileSearching(for: 3, givingUp: false).isSearch, "nothing yet: searching on")
        #expect(schedule.submit(Job(0)) == nil)
        guard case .run = schedule.nextWhileSearching(for: 3, givingUp: true) else {
            Issue.record("a searcher that gives up still takes a queued job"); return
        }
        #expect(schedule.next(for: 3, mayStartSearching: true).isSearch)
        #expect(schedule.submit(Job(1)) == nil)
        #expect(schedule.submit(Job(2)) == 0, "a second job wakes the worker parked longest")
        guard case .run = schedule.nextWhileSearching(for: 0, givingUp: true) else {
            Issue.record("the woken worker takes a job"); return
        }
        guard case .run = schedule.nextWhileSearching(for: 3, givingUp: true) else {
            Issue.record("the searcher takes the other"); return
        }
        #expect(schedule.next(for: 3, mayStartSearching: true).isPark, "worker 0 still runs")
        #expect(schedule.next(for: 0, mayStartSearching: true).isSearch, "now the rest is idle")
        #expect(schedule.nextWhileSearching(for: 0, givingUp: true).isPark)
        #expect(schedule.searching == 0)
        #expect(schedule.parked == [1, 2, 3, 0])
        var single = PoolSchedule(workerCount: 1)
        #expect(single.next(for: 0, mayStartSearching: true).isSearch, "a one-thread pool may search")
        var pair = PoolSchedule(workerCount: 2)
        #expect(pair.next(for: 0, mayStartSearching: true).isPark, "the other worker runs")
        #expect(pair.next(for: 1, mayStartSearching: true).isSearch)
        #expect(pair.submit(Job(0)) == nil)
        guard case .run = pair.nextWhileSearching(for: 1, givingUp: false) else {
            Issue.record("the searcher takes the job"); return
        }
    }

    @Test("a worker skips 1, 2, 4 … 64 searches after fruitless ones, and searches again once one finds work")
    func backOff() {
        var backOff = SearchBackOff()
        var first = backOff.mayStartSearching()
        #expect(first)
        var skipped: [Int] = []
        for _ in 0..<9 {
            backOff.gaveUp()
            var skips = 0
            while !backOff.mayStartSearching() { skips += 1 }
            skipped.append(skips)
        }
        #expect(skipped == [1, 2, 4, 8, 16, 32, 64, 64, 64])
        backOff.found()
        backOff.gaveUp()
        first = backOff.mayStartSearching()
        let second = backOff.mayStartSearching()
        #expect(!first && second, "one fruitless search after a fruitful one costs one skip")
    }

    /// Random interleavings of submissions and workers' steps, against the rule that no job is
    /// stranded: while the queue holds a job, some worker is running, searching or being woken.
    @Test("no interleaving strands a job, and every job is taken exactly once", arguments: [1, 2, 3, 4, 5, 6])
    func modelCheck(seed: UInt64) {
        enum State: Equatable { case running, searching, parked, woken }
        var random = SplitMix64(state: seed)
        for workerCount in [1, 2, 3, 4, 8] {
            var schedule = PoolSchedule(workerCount: workerCount)
            var states = Array(repeating: State.running, count: workerCount)
            var submitted = 0
            var taken: [Int] = []
            func apply(_ next: PoolSchedule.Next, to worker: Int) {
                switch next {
                case .run(let job):
                    taken.append((job as! Job).number)
                    states[worker] = .running
                case .search: states[worker] = .searching
                case .park: states[worker] = .parked
                }
            }
            func step(_ worker: Int, givingUp: Bool) {
                switch states[worker] {
                case .running:
                    apply(schedule.next(for: worker, mayStartSearching: Bool.random(using: &random)), to: worker)
                case .searching:
                    apply(schedule.nextWhileSearching(for: worker, givingUp: givingUp), to: worker)
                case .woken:
                    apply(schedule.nextWhileSearching(for: worker, givingUp: false), to: worker)
                case .parked:
                    break
                }
            }
            func checkInvariants() {
                #expect(schedule.searching == states.filter { $0 == .searching || $0 == .woken }.count)
                #expect(Set(schedule.parked) == Set(states.indices.filter { states[$0] == .parked }))
                #expect(schedule.parked.count == Set(schedule.parked).count)
                if !schedule.parked.isEmpty {
                    #expect(schedule.queue.count <= schedule.searching, "every queued job has a searcher while a worker sleeps")
                }
                if !schedule.queue.isEmpty {
                    #expect(states.contains { $0 != .parked }, "a queued job with every worker asleep")
                }
            }
            for _ in 0..<3_000 {
                if Int.random(in: 0..<3, using: &random) == 0 {
                    if let wake = schedule.submit(Job(submitted)) {
                        #expect(states[wake] == .parked)
                        states[wake] = .woken
                    }
                    submitted += 1
                } else {
                    step(Int.random(in: 0..<workerCount, using: &random), givingUp: Bool.random(using: &random))
                }
                checkInvariants()
            }
            // Let every worker go on until all are parked: the queue must then be empty.
            var rounds = 0
            while states.contains(where: { $0 != .parked }), rounds < 10_000 {
                for worker in states.indices { step(worker, givingUp: true) }
                checkInvariants()
                rounds += 1
            }
            #expect(!states.contains { $0 != .parked })
            #expect(schedule.queue.isEmpty)
            #expect(taken.sorted() == Array(0..<submitted), "every job taken exactly once")
        }
    }

    /// The pool itself: bursts from outside and from its own threads, each after a pause long
    /// enough for every thread to park (and, after a fruitless search, to skip its next searches).
    /// A lost wake-up would leave a burst unfinished: the wait would time out.
    @Test("bursts after idle pauses all run, from outside the pool and from inside it")
    func burstsAfterIdlePauses() async throws {
        // New pools start threads for good: the thread-counting tests must not see them appear.
        try await AsyncMutex.memoryHeavy.withLock { () async throws in
            for threads in [1, 2, 3] {
                let pool = WorkerPool(threadCount: threads, name: "bursts\(threads)")
                for round in 0..<40 {
                    let jobs = [1, 2, 7, 64][round % 4]
                    let finished = Countdown(jobs)
                    if round % 2 == 0 {
                        for _ in 0..<jobs { pool.submit(ClosureWorkItem { finished.tick() }) }
                    } else {
                        pool.submit(ClosureWorkItem { for _ in 0..<jobs { pool.submit(ClosureWorkItem { finished.tick() }) } })
                    }
                    try await finished.wait()  // a lost wake-up fails here, at the hang guard
                    if round % 5 == 0 { try await Task.sleep(for: .microseconds(300)) }  // every thread parks
                }
            }
        }
    }
}

extension PoolSchedule.Next {
    var isPark: Bool { if case .park = self { true } else { false } }
    var isSearch: Bool { if case .search = self { true } else { false } }
}
