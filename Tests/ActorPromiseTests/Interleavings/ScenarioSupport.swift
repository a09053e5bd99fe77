#if ACTORPROMISE_INTERLEAVINGS
import Foundation
import Synchronization
@testable import ActorPromise
import ActorPromiseExecutors

/// The lock of a scenario's own helpers: not a scheduling point (it is the scenario's, not the
/// library's), but the memory model sees what it orders, as it would in a real run.
final class ScenarioLock: Sendable {
    private let base = NSLock()

    func lock() {
        base.lock()
        MemoryModel.shared.acquire(ObjectIdentifier(self))
    }

    func unlock() {
        MemoryModel.shared.release(ObjectIdentifier(self))
        base.unlock()
    }

    func withLock<Result>(_ body: () throws -> Result) rethrows -> Result {
        lock()
        defer { unlock() }
        return try body()
    }
}

/// Work queued by promise handlers, run only when a scenario thread drains it: the checker's
/// stand-in for a context with threads of its own, whose work it could not schedule.
final class JobList: ExecutionContext, @unchecked Sendable {
    // Safety: `items` is touched only with `lock` held (a ``ScenarioLock``, which the checker does
    // not schedule: the list is the scenario's, not the library's).
    private let lock = ScenarioLock()
    private var items: [any Runnable] = []

    func submit(_ item: any Runnable) {
        lock.lock()
        items.append(item)
        lock.unlock()
    }

    var isEmpty: Bool {
        lock.lock()
        defer { lock.unlock() }
        return items.isEmpty
    }

    /// Runs the queued items, and those they queue, in order.
    func runAll() {
        while true {
            lock.lock()
            guard !items.isEmpty else { return lock.unlock() }
            let item = items.removeFirst()
            lock.unlock()
            item.run()
        }
    }
}

/// What handlers and callbacks were called with, in order.
final class CallLog: @unchecked Sendable {
    // Safety: `entries` is touched only with `lock` held (not a library lock: not scheduled).
    private let lock = ScenarioLock()
    private var entries: [String] = []

    func add(_ entry: String) {
        lock.lock()
        entries.append(entry)
        lock.unlock()
    }

    var all: [String] {
        lock.lock()
        defer { lock.unlock() }
        return entries
    }

    func count(_ entry: String) -> Int { all.filter { $0 == entry }.count }
    func count(prefix: String) -> Int { all.filter { $0.hasPrefix(prefix) }.count }
}

/// A promise's state in words: `pending`, `fulfilled(3)`, `cancelled`, `rejected(…)`.
func state<Value>(_ promise: Promise<Value>) -> String {
    switch promise.result {
    case nil: "pending"
    case .success(let value)?: "fulfilled(\(value))"
    case .failure(let error)? where error.isCancellation: "cancelled"
    case .failure(let error)?: "rejected(\(error))"
    }
}

/// An outcome in the same words.
func describe<Value>(_ result: Result<Value, any Error>) -> String {
    switch result {
    case .success(let value): "fulfilled(\(value))"
    case .failure(let error) where error.isCancellation: "cancelled"
    case .failure(let error): "rejected(\(error))"
    }
}

/// Whether no operation is left parked on the promise's gate and nobody holds it.
func gateIsFree<Value>(_ promise: Promise<Value>) -> Bool {
    promise.core.gate.word.load(ordering: .relaxed) == 0
}

/// Collects the problems a check finds.
struct Findings {
    private(set) var problems: [String] = []

    mutating func expect(_ condition: Bool, _ message: @autoclosure () -> String) {
        if !condition { problems.append(message()) }
    }

    /// Every promise's gate is free: no parked operation was left behind.
    mutating func gatesFree<Value>(_ promises: [Promise<Value>], _ names: [String]) {
        for (promise, name) in zip(promises, names) where !gateIsFree(promise) {
            problems.append("\(name)'s gate is held or has parked operations")
        }
    }
}

struct TestFailure: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
#endif
