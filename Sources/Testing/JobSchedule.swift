import ActorPromiseExecutors

/// The jobs a test runtime holds, and which one runs next: one line per context — in submission
/// order for a serial context, in any order for a pool, whose jobs are independent — and a choice
/// between the lines that have work.
///
/// Without a seed the choice is the oldest job of all: submission order across contexts. With a
/// seed it is a pseudo-random line among those with work (and, in a pool's line, a pseudo-random
/// job), drawn from the seed alone, so the same seed replays the same order. A serial context's
/// line always keeps its order. Pure state: no locks, and no job runs here.
struct JobSchedule {
    private struct Line {
        let context: any ExecutionContext
        let ordered: Bool
        var jobs: [(sequence: UInt64, job: any Runnable)] = []
    }

    /// The lines in the order their contexts first received a job (never a dictionary's order,
    /// which changes from run to run).
    private var lines: [Line] = []
    private var sequence: UInt64 = 0
    private var random: SplitMix64?

    init(seed: UInt64?) {
        random = seed.map(SplitMix64.init(state:))
    }

    /// How many jobs wait.
    private(set) var count = 0

    /// Queues `job`; a delivery from outside the runtime (`fromOutside`) is not counted among
    /// ``pushes``, so that a callback answered while a promise body still runs does not count as
    /// work the body started.
    mutating func push(_ job: any Runnable, on context: any ExecutionContext, ordered: Bool, fromOutside: Bool = false) {
        sequence += 1
        if !fromOutside { pushes += 1 }
        count += 1
        if let index = lines.firstIndex(where: { $0.context === context }) {
            lines[index].jobs.append((sequence, job))
        } else {
            lines.append(Line(context: context, ordered: ordered, jobs: [(sequence, job)]))
        }
    }

    /// Takes the job to run next, if any, with the context it was submitted to.
    mutating func pop() -> (job: any Runnable, context: any ExecutionContext)? {
        let waiting = lines.indices.filter { !lines[$0].jobs.isEmpty }
        guard !waiting.isEmpty else { return nil }
        let line: Int
        let position: Int
        if var generator = random {
            line = waiting[Int(generator.next() % UInt64(waiting.count))]
            position = lines[line].ordered ? 0 : Int(generator.next() % UInt64(lines[line].jobs.count))
            random = generator
        } else {
            line = waiting.min { lines[$0].jobs[0].sequence < lines[$1].jobs[0].sequence }!
            position = 0
        }
        count -= 1
        return (lines[line].jobs.remove(at: position).job, lines[line].context)
    }

    /// Callbacks handed to work outside the runtime and not called yet (see `OutsideCallback`),
    /// oldest first, each with its number among the callbacks made.
    private var outside: [(id: ObjectIdentifier, number: UInt64, label: String)] = []
    /// How many jobs the runtime's own work ever pushed.
    private(set) var pushes: UInt64 = 0
    /// How many completion handlers were ever made under the runtime.
    private(set) var callbacksMade: UInt64 = 0

    /// Whether work outside the runtime may still deliver: an outside callback not called yet.
    func awaitsOutsideWork() -> Bool { !outside.isEmpty }

    /// Numbers a new callback; with `holdsClock`, the runtime waits for it until it is called.
    mutating func callbackMade(_ id: ObjectIdentifier, label: String, holdsClock: Bool) {
        if holdsClock { outside.append((id, callbacksMade, label)) }
        callbacksMade += 1
    }

    /// Stops waiting for a callback; returns whether the runtime was waiting for it.
    mutating func callbackEnded(_ id: ObjectIdentifier) -> Bool {
        guard let index = outside.firstIndex(where: { $0.id == id }) else { return false }
        outside.remove(at: index)
        return true
    }

    /// Stops waiting for the callbacks made since `number`: work the runtime drives answers them.
    mutating func releaseCallbacks(madeSince number: UInt64) {
        outside.removeAll { $0.number >= number }
    }

    /// What the outside work still awaited is, and forgets it: the runtime gives up on it.
    mutating func giveUpOutsideWork() -> [String] {
        defer { outside = [] }
        return outside.map(\.label)
    }

    /// Puts `items` in an order drawn from the seed; without a seed, leaves them as they are.
    mutating func shuffle<Item>(_ items: inout [Item]) {
        guard var generator = random, items.count > 1 else { return }
        items.shuffle(using: &generator)
        random = generator
    }

    /// Takes every waiting job with its context, oldest first, leaving the schedule empty.
    mutating func removeAll() -> [(job: any Runnable, context: any ExecutionContext)] {
        let all = lines.flatMap { line in line.jobs.map { (sequence: $0.sequence, job: $0.job, context: line.context) } }
        lines = []
        count = 0
        return all.sorted { $0.sequence < $1.sequence }.map { ($0.job, $0.context) }
    }
}

/// SplitMix64: a small, fast generator whose whole state is one number, so a seed names a
/// sequence — an order of jobs here, a random graph in this package's own model tests.
package struct SplitMix64: RandomNumberGenerator {
    package var state: UInt64

    package init(state: UInt64) { self.state = state }

    package mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
