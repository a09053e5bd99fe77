#if ACTORPROMISE_INTERLEAVINGS
import Dispatch
import Foundation
import ActorPromiseExecutors

/// A deterministic interleaving checker for the promise core's protocol between threads.
///
/// In the checker's build (`-DACTORPROMISE_INTERLEAVINGS`) every atomic operation and lock of the
/// core is a scheduling point (`SchedulingPoints.swift`). The checker runs a scenario's threads
/// one at a time: at each point it decides which thread goes on. A depth-first search runs the
/// scenario once for every schedule with at most `bound` preemptions (a switch away from a thread
/// that could have gone on; a switch forced because the thread ended or waits for a lock is free),
/// as context bounding does. Each schedule is a list of choices, one per decision with more than
/// one thread to pick; a failing one is printed with its choices, which `replay` runs again.
///
/// Memory orderings: the library's atomics are the `MemoryModel`'s in this build. Its vector
/// clocks report a plain field handed over without a happens-before edge as the run's failure;
/// in a scenario with a budget of stale reads (`Scenario.staleReads`), a load's choice among the
/// stores the orderings let it read is a decision of the search too (it costs no preemption).
///
/// Limits: only the scenario's threads
/// are scheduled (handlers run inline, from a ``JobList`` that a scenario thread drains, or on a
/// checked pool whose workers are scenario threads; a run loop's driver and the timer thread's
/// loop run on scenario threads when a scenario makes them so); a thread
/// blocking outside the checker (a semaphore or condition variable other than the library's, a
/// lock of the Swift runtime) hangs the run, which is reported after a minute, so code the
/// runtime runs under a task's lock (its cancellation handler) keeps the threads that need that
/// lock waiting where they need it (``holdingRuntimeLock(_:)``).
final class InterleavingChecker: @unchecked Sendable {
    // Safety (`@unchecked Sendable`): every mutable field is read and written with `mutex` held.
    // The scenario's threads hand the one turn to each other through their semaphores.

    /// The one checker of the process: its hooks are installed once.
    static let shared = InterleavingChecker()

    /// One decision of a run: how many threads could go on, which was picked (its position, the
    /// running thread first when it could go on), and whether the running thread could.
    struct Decision {
        var options: Int
        var chosen: Int
        var currentEnabled: Bool
        /// A load's choice of store (`chosen > 0`: a stale read), not a thread's.
        var isRead = false
    }

    /// What one run of a scenario gave.
    struct Run {
        var decisions: [Decision]
        var failure: String?
        var trace: String
    }

    /// What a search found.
    struct Report: CustomStringConvertible {
        var scenario: String
        var bound: Int
        var staleReads = 0
        var schedules: Int
        var complete: Bool
        var failure: String?

        var description: String {
            let what = complete ? "every schedule" : "the first \(schedules) schedules (limit)"
            if let failure { return "\(scenario): FAILED after \(schedules) schedules\n\(failure)" }
            let reads = staleReads > 0 ? " and ≤ \(staleReads) stale reads" : ""
            return "\(scenario): \(what) with ≤ \(bound) preemptions\(reads), \(schedules) runs, passed"
        }
    }

    private let mutex = NSLock()
    private var threads: [CheckedThread] = []
    private var finished: [Bool] = []
    private var blockedOnLock: [ObjectIdentifier?] = []
    private var waitingFor: [(() -> Bool)?] = []
    /// The threads in a timed wait, and those whose time the checker let run out: a timed wait
    /// ends when no other thread can run.
    private var timedWaiters: Set<Int> = []
    private var timeIsUp: Set<Int> = []
    /// Whether any timed wait of this run ended because its time was up, not by a broadcast.
    private var timePassed = false
    /// The thread that runs code under a task's lock of the Swift runtime (see
    /// ``holdingRuntimeLock(_:)``).
    private var runtimeLockHolder: Int?
    private var owners: [ObjectIdentifier: Int] = [:]
    private var prefix: [Int] = []
    private var decisions: [Decision] = []
    private var steps: [(thread: Int, label: String)] = []
    private var failure: String?
    private var freeRun = false
    /// Stale reads a run may make (the scenario's budget).
    private var staleBound = 0
    private var done = DispatchSemaphore(value: 0)
    /// Points one run may pass before it is called a livelock.
    private let maxSteps = 50_000

    private init() {
        installInterleavingHooks(InterleavingHooks(
            point: { [unowned self] label in point(String(describing: label)) },
            willLock: { [unowned self] lock in willLock(lock) },
            didUnlock: { [unowned self] lock in didUnlock(lock) },
            block: { [unowned self] condition, timed in
                guard checkedThread() != nil else { return false }
                wait(until: condition, timed: timed)
                return true
            },
            threadIndex: { [unowned self] in checkedThread().flatMap { $0.isLooking ? nil : $0.index } },
            chooseRead: { [unowned self] options in chooseRead(options) }
        ))
    }

    // MARK: Searching

    /// Runs `scenario` once for every schedule with at most `bound` preemptions (at most `limit`
    /// runs), stopping at the first failure.
    func explore(_ scenario: Scenario, bound: Int, limit: Int = 200_000) -> Report {
        staleBound = scenario.staleReads
        warmUp(scenario)
        var prefix: [Int] = []
        var schedules = 0
        while true {
            let run = execute(scenario, prefix: prefix)
            schedules += 1
            if let failure = run.failure {
                let choices = run.decisions.map { String($0.chosen) }.joined(separator: ",")
                return Report(
                    scenario: scenario.name, bound: bound, staleReads: staleBound, schedules: schedules, complete: false,
                    failure: "\(failure)\nschedule (replay with `replay(_:schedule:)`): [\(choices)]\ntrace: \(run.trace)")
            }
            guard let next = Self.nextPrefix(after: run.decisions, bound: bound, staleReads: staleBound) else {
                return Report(scenario: scenario.name, bound: bound, staleReads: staleBound, schedules: schedules, complete: true)
            }
            if schedules >= limit {
                return Report(scenario: scenario.name, bound: bound, staleReads: staleBound, schedules: schedules, complete: false)
            }
            prefix = next
        }
    }

    /// Runs `scenario` once, in the schedule a failure printed.
    func replay(_ scenario: Scenario, schedule: [Int]) -> Run {
        staleBound = scenario.staleReads
        warmUp(scenario)
        return execute(scenario, prefix: schedule)
    }

    /// The next schedule of the depth-first search: the deepest decision with a choice not yet
    /// tried that keeps the preemptions within `bound` and the stale reads within `staleReads`.
    static func nextPrefix(after decisions: [Decision], bound: Int, staleReads: Int = 0) -> [Int]? {
        var preemptionsBefore = [Int](repeating: 0, count: decisions.count)
        var staleBefore = [Int](repeating: 0, count: decisions.count)
        var preemptions = 0
        var stale = 0
        for (index, decision) in decisions.enumerated() {
            preemptionsBefore[index] = preemptions
            staleBefore[index] = stale
            if decision.chosen > 0, decision.isRead { stale += 1 }
            if decision.chosen > 0, decision.currentEnabled, !decision.isRead { preemptions += 1 }
        }
        for depth in decisions.indices.reversed() {
            let decision = decisions[depth]
            let next = decision.chosen + 1
            guard next < decision.options else { continue }
            if decision.isRead {
                guard staleBefore[depth] + 1 <= staleReads else { continue }
            } else {
                let cost = decision.currentEnabled ? 1 : 0
                guard preemptionsBefore[depth] + cost <= bound else { continue }
            }
            return decisions[..<depth].map(\.chosen) + [next]
        }
        return nil
    }

    /// Runs the scenario once in the schedule without preemptions before the search, so that
    /// lazily initialized globals are made before any schedule that preempts (a thread switched
    /// out inside a global's one-time initializer would block the next one for real).
    private func warmUp(_ scenario: Scenario) {
        _ = execute(scenario, prefix: [])
    }

    // MARK: One run

    private func execute(_ scenario: Scenario, prefix: [Int]) -> Run {
        var instance: Scenario.Instance? = scenario.make()
        let watched = instance?.watched ?? []
        var bodies = instance?.threads ?? []
        var check = instance?.check
        instance = nil
        mutex.lock()
        self.prefix = prefix
        decisions = []
        steps = []
        failure = nil
        freeRun = false
        owners = [:]
        done = DispatchSemaphore(value: 0)
        threads = bodies.enumerated().map { CheckedThread(index: $0.offset, body: $0.element, checker: self) }
        bodies = []
        finished = Array(repeating: false, count: threads.count)
        blockedOnLock = Array(repeating: nil, count: threads.count)
        waitingFor = Array(repeating: nil, count: threads.count)
        timedWaiters = []
        timeIsUp = []
        timePassed = false
        runtimeLockHolder = nil
        MemoryModel.shared.reset(threads: threads.count, explores: staleBound > 0) { [unowned self] race in fail(race) }
        let started = threads
        let first = choose(current: nil)
        mutex.unlock()
        for thread in started { thread.start() }
        if let first { started[first].turn.signal() }
        if done.wait(timeout: .now() + 60) == .timedOut {
            mutex.lock()
            failure = failure ?? "hang: a thread blocked outside the checker for a minute"
            mutex.unlock()
        }
        mutex.lock()
        var failure = self.failure
        let trace = Self.describe(steps)
        let decisions = self.decisions
        threads = []
        mutex.unlock()
        if failure == nil, let problems = check?(), !problems.isEmpty {
            failure = problems.joined(separator: "\n")
        }
        // Everything the scenario made is let go of now; what it watches must be freed with it.
        check = nil
        if failure == nil {
            let leaked = watched.filter { $0.reference.object != nil }.map(\.name)
            if !leaked.isEmpty { failure = "leaked: \(leaked.joined(separator: ", ")) outlived the scenario" }
        }
        return Run(decisions: decisions, failure: failure, trace: trace)
    }

    /// The steps as runs of one thread: `T0: a b c | T1: d e`.
    private static func describe(_ steps: [(thread: Int, label: String)]) -> String {
        var parts: [String] = []
        var current: Int?
        var labels: [String] = []
        for step in steps {
            if step.thread != current {
                if let current { parts.append("T\(current): " + labels.joined(separator: " ")) }
                current = step.thread
                labels = []
            }
            labels.append(step.label)
        }
        if let current { parts.append("T\(current): " + labels.joined(separator: " ")) }
        return parts.joined(separator: " | ")
    }

    /// Picks the thread that goes on (the mutex held); `nil` when none can. Records a decision
    /// when there is a choice.
    private func choose(current: Int?) -> Int? {
        func enabled() -> [Int] { threads.indices.filter { !finished[$0] && isEnabled($0) } }
        var options = enabled()
        if options.isEmpty, !timedWaiters.isEmpty {
            // Nothing else can run: time passes, and every timed wait may end.
            timePassed = true
            timeIsUp.formUnion(timedWaiters)
            options = enabled()
        }
        guard !options.isEmpty else { return nil }
        var currentEnabled = false
        if let current, let position = options.firstIndex(of: current) {
            currentEnabled = true
            options.remove(at: position)
            options.insert(current, at: 0)
        }
        guard options.count > 1 else { return options[0] }
        let depth = decisions.count
        var position = 0
        if depth < prefix.count {
            position = prefix[depth]
            if position >= options.count {
                failure = failure ?? "replay diverged at decision \(depth): the scenario is not deterministic"
                position = 0
            }
        }
        decisions.append(Decision(options: options.count, chosen: position, currentEnabled: currentEnabled))
        return options[position]
    }

    private func isEnabled(_ index: Int) -> Bool {
        if let lock = blockedOnLock[index], owners[lock] != nil { return false }
        if let condition = waitingFor[index] {
            // A look on the waiting thread's behalf, not an operation of the thread that looks.
            let looker = CheckedThread.current
            looker?.isLooking = true
            defer { looker?.isLooking = false }
            if !condition() { return false }
        }
        return true
    }

    /// Which of `options` stores the running thread's load reads: a decision of the search while
    /// the run's stale reads are within the budget, and the newest store otherwise.
    private func chooseRead(_ options: Int) -> Int {
        mutex.lock()
        defer { mutex.unlock() }
        guard !freeRun, staleBound > 0 else { return 0 }
        let stale = decisions.count { $0.isRead && $0.chosen > 0 }
        guard stale < staleBound else { return 0 }
        let depth = decisions.count
        var position = 0
        if depth < prefix.count {
            position = prefix[depth]
            if position >= options {
                failure = failure ?? "replay diverged at decision \(depth): the scenario is not deterministic"
                position = 0
            }
        }
        decisions.append(Decision(options: options, chosen: position, currentEnabled: true, isRead: true))
        if let thread = CheckedThread.current, position > 0 { steps.append((thread.index, "(stale read)")) }
        return position
    }

    /// Records `message` as the run's failure; the run goes on.
    private func fail(_ message: String) {
        mutex.lock()
        failure = failure ?? message
        mutex.unlock()
    }

    /// Hands the turn from `me` to `next` and waits for it to come back (the mutex held on entry,
    /// released here).
    private func switchTurn(from me: CheckedThread, to next: Int) {
        let thread = threads[next]
        mutex.unlock()
        thread.turn.signal()
        me.turn.wait()
    }

    /// Ends the search of this run when something is wrong: every thread runs freely from now on.
    private func giveUp(_ message: String) {
        failure = failure ?? message
        freeRun = true
        for (index, thread) in threads.enumerated() where !finished[index] { thread.turn.signal() }
    }

    // MARK: Hooks

    private func checkedThread() -> CheckedThread? {
        guard let thread = CheckedThread.current, thread.checker === self else { return nil }
        return thread
    }

    private func point(_ label: String) {
        guard let me = checkedThread() else { return }
        mutex.lock()
        guard !freeRun else { return mutex.unlock() }
        steps.append((me.index, label))
        if steps.count > maxSteps {
            giveUp("livelock: more than \(maxSteps) scheduling points in one run")
            return mutex.unlock()
        }
        if let next = choose(current: me.index), next != me.index {
            switchTurn(from: me, to: next)
            mutex.lock()
        }
        if label == "await.continuation" || label == "await.suspends" || label == "await.resumed" {
            // Resuming a task, suspending it, and removing its cancellation handler once resumed
            // take the runtime's lock of the task: the thread goes on only while no other thread
            // runs the task's cancellation handler under it.
            waitForRuntimeLock(me)
        }
        mutex.unlock()
    }

    /// Waits, the mutex held, until no other thread holds a task's runtime lock.
    private func waitForRuntimeLock(_ me: CheckedThread) {
        block(me, label: "waits for the runtime's lock", until: { runtimeLockIsFree(for: me.index) }) { waits in
            waitingFor[me.index] = waits ? { [unowned self] in runtimeLockIsFree(for: me.index) } : nil
        }
    }

    /// Waits until no other thread holds a task's runtime lock: for a thread about to run one of
    /// the task's jobs, which the runtime marks running under that lock.
    func waitForRuntimeLock() {
        guard let me = checkedThread() else { return }
        mutex.lock()
        waitForRuntimeLock(me)
        mutex.unlock()
    }

    /// Whether thread `index` may take the Swift runtime's lock of the task it touches (the
    /// mutex held).
    private func runtimeLockIsFree(for index: Int) -> Bool {
        guard let holder = runtimeLockHolder else { return true }
        return holder == index || finished[holder]
    }

    /// Runs `body` on the calling scenario thread as code the Swift runtime runs holding a task's
    /// lock (its cancellation handler, run by `cancel()` under the task's status lock): its
    /// scheduling points interleave with every other thread's, the task's own included, but a
    /// thread that needs that lock — to resume the task, or, resumed, to remove the handler —
    /// waits there until `body` returns.
    func holdingRuntimeLock(_ body: () -> Void) {
        guard let me = checkedThread() else { return body() }
        mutex.lock()
        runtimeLockHolder = me.index
        mutex.unlock()
        body()
        mutex.lock()
        runtimeLockHolder = nil
        mutex.unlock()
    }

    private func willLock(_ lock: ObjectIdentifier) {
        guard let me = checkedThread() else { return }
        point("lock")
        mutex.lock()
        block(me, label: "blocked", until: { owners[lock].map { $0 == me.index } ?? true }) { waits in
            blockedOnLock[me.index] = waits ? lock : nil
        }
        if !freeRun { owners[lock] = me.index }
        mutex.unlock()
    }

    private func didUnlock(_ lock: ObjectIdentifier) {
        guard let me = checkedThread() else { return }
        mutex.lock()
        if owners[lock] == me.index { owners[lock] = nil }
        mutex.unlock()
    }

    /// Blocks the calling scenario thread until `condition` holds (checked with the checker's
    /// mutex held: it must not take a lock of the library). For a thread that waits for work; a
    /// `timed` wait also ends once no other thread can run, as when its time is up.
    func wait(until condition: @escaping () -> Bool, timed: Bool = false) {
        guard let me = checkedThread() else { return }
        mutex.lock()
        let index = me.index
        let ends: () -> Bool = timed ? { [unowned self] in condition() || timeIsUp.contains(index) } : condition
        if timed { timedWaiters.insert(index) }
        block(me, label: timed ? "waits (timed)" : "waits", until: ends) { waits in waitingFor[index] = waits ? ends : nil }
        timedWaiters.remove(index)
        timeIsUp.remove(index)
        mutex.unlock()
    }

    /// Whether a timed wait of the current run ended because its time was up: a scenario whose
    /// threads should wake each other by broadcasts alone checks that none had to.
    var timeHasPassed: Bool {
        mutex.lock()
        defer { mutex.unlock() }
        return timePassed
    }

    /// Hands the turn to other threads until `isFree` holds (the mutex held on entry and on
    /// return); `mark` records, while it does not, what `me` waits for, so that `choose` passes it
    /// over.
    private func block(_ me: CheckedThread, label: String, until isFree: () -> Bool, mark: (Bool) -> Void) {
        while !freeRun, !isFree() {
            mark(true)
            guard let next = choose(current: me.index) else {
                giveUp("deadlock: every thread waits for a lock or for work")
                break
            }
            steps.append((me.index, label))
            switchTurn(from: me, to: next)
            mutex.lock()
            mark(false)
        }
    }

    fileprivate func finish(_ me: CheckedThread) {
        mutex.lock()
        finished[me.index] = true
        if finished.allSatisfy({ $0 }) {
            mutex.unlock()
            done.signal()
            return
        }
        if freeRun { return mutex.unlock() }
        guard let next = choose(current: nil) else {
            giveUp("deadlock: the threads left wait for locks or work that never come")
            mutex.unlock()
            done.signal()
            return
        }
        let thread = threads[next]
        mutex.unlock()
        thread.turn.signal()
    }
}

/// A thread of a scenario: it waits for its turn before it starts and at every scheduling point.
final class CheckedThread: @unchecked Sendable {
    // Safety: `body` is taken once, and `isLooking` written and read, by the thread itself; the
    // rest is immutable.
    let index: Int
    let turn = DispatchSemaphore(value: 0)
    unowned let checker: InterleavingChecker
    /// Set while the checker, on this thread, evaluates another thread's wait condition.
    var isLooking = false
    private var body: (@Sendable () -> Void)?

    /// The key under which each scenario thread finds its `CheckedThread` (unretained: the
    /// checker holds it until the run is over).
    private static let key: pthread_key_t = {
        var key = pthread_key_t()
        pthread_key_create(&key, nil)
        return key
    }()

    /// The scenario thread running this code, if it is one.
    static var current: CheckedThread? {
        pthread_getspecific(key).map { Unmanaged<CheckedThread>.fromOpaque($0).takeUnretainedValue() }
    }

    init(index: Int, body: @escaping @Sendable () -> Void, checker: InterleavingChecker) {
        self.index = index
        self.body = body
        self.checker = checker
    }

    func start() {
        let thread = Thread { [self] in main() }
        thread.stackSize = 1 << 20
        thread.start()
    }

    private func main() {
        pthread_setspecific(Self.key, Unmanaged.passUnretained(self).toOpaque())
        turn.wait()
        do {
            let body = self.body.take()
            body?()
        }
        checker.finish(self)
        pthread_setspecific(Self.key, nil)
    }
}

/// A scenario: `make` builds the promises (outside the checker) and returns the threads' bodies
/// and the check of what a user would observe once they have all finished.
struct Scenario: Sendable {
    let name: String
    /// The most preemptions its search allows by default: fewer than three for scenarios whose
    /// threads pass so many points that three would take minutes (each prints its bound).
    let bound: Int
    /// The loads per run that may read a store older than the newest one (as the orderings
    /// allow: see `MemoryModel`); 0 for scenarios that explore schedules only.
    let staleReads: Int
    let make: @Sendable () -> Instance

    init(_ name: String, bound: Int = 3, staleReads: Int = 0, make: @escaping @Sendable () -> Instance) {
        self.name = name
        self.bound = bound
        self.staleReads = staleReads
        self.make = make
    }

    struct Instance {
        var threads: [@Sendable () -> Void]
        /// The problems found (empty when the run is right).
        var check: () -> [String]
        /// Objects that must be freed once the threads, the check and everything the scenario
        /// made are let go of (a leak check: weak references).
        var watched: [(name: String, reference: WeakReference)] = []

        init(threads: [@Sendable () -> Void], watching: [(String, AnyObject)] = [], check: @escaping () -> [String]) {
            self.threads = threads
            self.check = check
            watched = watching.map { ($0.0, WeakReference($0.1)) }
        }
    }
}
#endif
