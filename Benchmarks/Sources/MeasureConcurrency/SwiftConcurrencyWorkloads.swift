import ActorPromise
import Dispatch
import Foundation

/// ActorPromise against plain Swift concurrency, in the shapes a user would compare:
///
/// - `rt` / `rtb`: work handed to `DispatchQueue.global()` and its result awaited — a promise made
///   with `pending()` (`rt`) or with a body (`rtb`), against a continuation with a cancellation
///   handler (checked, unsafe) and a bare one. `rtm` / `rtbm`: the same awaited from the main
///   actor.
/// - `fanin`: a value per input fanned in — promises combined with `then` and `all`, against a
///   `TaskGroup`.
/// - `seq`: sequential steps — a chain of `then` links, against awaited calls alternating between
///   two actors.
enum SwiftConcurrencyWorkloads {
    static let queue = DispatchQueue.global()

    // MARK: Await round trip

    /// The round trip of one await, for `library`; `nil` for a library this workload lacks.
    static func roundTrip(_ library: String, body: Bool) -> (@Sendable () async -> Int)? {
        switch library {
        case "actorpromise" where body:
            return { try! await Promise<Int> { resolver in queue.async { resolver.fulfill(1) } }.value }
        case "actorpromise":
            return {
                let (promise, resolver) = Promise<Int>.pending()
                queue.async { resolver.fulfill(1) }
                return try! await promise.value
            }
        case "checked-cancellable":
            return {
                await withTaskCancellationHandler {
                    await withCheckedContinuation { continuation in queue.async { continuation.resume(returning: 1) } }
                } onCancel: {}
            }
        case "unsafe-cancellable":
            return {
                await withTaskCancellationHandler {
                    await withUnsafeContinuation { continuation in queue.async { continuation.resume(returning: 1) } }
                } onCancel: {}
            }
        case "checked":
            return { await withCheckedContinuation { continuation in queue.async { continuation.resume(returning: 1) } } }
        case "unsafe":
            return { await withUnsafeContinuation { continuation in queue.async { continuation.resume(returning: 1) } } }
        default:
            return nil
        }
    }

    /// `iterations` round trips awaited one after the other from a task of the global executor.
    static func roundTrips(iterations: Int, _ once: @escaping @Sendable () async -> Int) async {
        var sum = 0
        for _ in 0..<iterations { sum &+= await once() }
        precondition(sum == iterations)
    }

    /// The same, awaited from the main actor.
    @MainActor
    static func roundTripsOnMainActor(iterations: Int, _ once: @escaping @Sendable () async -> Int) async {
        var sum = 0
        for _ in 0..<iterations {
            sum &+= await once()
            MainActor.assertIsolated()
        }
        precondition(sum == iterations)
    }

    // MARK: Fan-in

    /// `inputs` values, each made by a `then` step on the pool, combined with `all` and awaited.
    static func fanInPromises(iterations: Int, inputs: Int) async {
        for _ in 0..<iterations {
            let values = try! await Promise.all((0..<inputs).map { input in Promise(value: input).then { $0 &+ 1 } }).value
            precondition(values.count == inputs)
        }
    }

    /// The same values, each made by a child task of a `TaskGroup`, collected in input order.
    static func fanInTaskGroup(iterations: Int, inputs: Int) async {
        for _ in 0..<iterations {
            let values = await withTaskGroup(of: (Int, Int).self) { group in
                for input in 0..<inputs { group.addTask { (input, input &+ 1) } }
                var values = [Int](repeating: 0, count: inputs)
                for await (index, value) in group { values[index] = value }
                return values
            }
            precondition(values.count == inputs)
        }
    }

    // MARK: Sequential steps

    /// A chain of `steps` `then` links on the pool, its root fulfilled, its end awaited.
    static func sequentialPromises(iterations: Int, steps: Int) async {
        for _ in 0..<iterations {
            let (root, resolver) = Promise<Int>.pending()
            var end = root
            for _ in 0..<steps { end = end.then { $0 &+ 1 } }
            resolver.fulfill(0)
            let value = try! await end.value
            precondition(value == steps)
        }
    }

    /// `steps` awaited calls, alternating between two actors, each passing the running value on.
    static func sequentialActorCalls(iterations: Int, steps: Int) async {
        let (first, second) = (Stepper(), Stepper())
        for _ in 0..<iterations {
            var value = 0
            for step in 0..<steps { value = await (step & 1 == 0 ? first : second).step(value) }
            precondition(value == steps)
        }
    }

    actor Stepper {
        func step(_ value: Int) -> Int { value &+ 1 }
    }
}
