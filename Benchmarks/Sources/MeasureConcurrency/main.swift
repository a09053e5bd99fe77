// ActorPromise against plain Swift concurrency (Benchmarks/README.md, "Against Swift concurrency"):
// one workload a run, for one side, as `Measure` does for the others. A binary of its own, so that
// these workloads do not change the code the optimizer lays out for the other rows' binary.
//
//   MeasureConcurrency <workload> <side> <iterations>
//   workload: rt, rtb (a value made on DispatchQueue.global() and awaited: the promise made with
//             pending() or with a body), rtm, rtbm (the same awaited from the main actor);
//             sides actorpromise, checked-cancellable, unsafe-cancellable, checked, unsafe
//             fanin (1,000 values fanned in): actorpromise (then + all), taskgroup
//             seq (1,000 sequential steps): actorpromise (a then chain), actors (awaited calls
//             alternating between two actors)
import Foundation

/// Runs async work from the synchronous main thread (valgrind cannot run an `async` main).
func runAsync(_ body: @escaping @Sendable () async -> Void) {
    let done = DispatchSemaphore(value: 0)
    Task {
        await body()
        done.signal()
    }
    done.wait()
}

/// Runs `body` on the main actor, with the main run loop serving it, and exits when it returns
/// (the main-actor rows; the others run from a blocked main thread). The run loop,
/// not `dispatchMain()`, which valgrind cannot run.
func runOnMainActor(_ body: @escaping @MainActor () async -> Void) -> Never {
    Task { @MainActor in
        await body()
        exit(0)
    }
    while true { RunLoop.main.run() }
}

let arguments = CommandLine.arguments
guard arguments.count == 4, let iterations = Int(arguments[3]) else {
    print("usage: MeasureConcurrency WORKLOAD SIDE ITERATIONS")
    exit(2)
}
let (workload, side) = (arguments[1], arguments[2])

switch (workload, side) {
case ("rt", _), ("rtb", _), ("rtm", _), ("rtbm", _):
    guard let once = SwiftConcurrencyWorkloads.roundTrip(side, body: workload.hasPrefix("rtb")) else {
        print("unknown workload/side: \(workload) \(side)")
        exit(2)
    }
    if workload.hasSuffix("m") {
        runOnMainActor { await SwiftConcurrencyWorkloads.roundTripsOnMainActor(iterations: iterations, once) }
    }
    runAsync { await SwiftConcurrencyWorkloads.roundTrips(iterations: iterations, once) }
case ("fanin", "actorpromise"): runAsync { await SwiftConcurrencyWorkloads.fanInPromises(iterations: iterations, inputs: 1_000) }
case ("fanin", "taskgroup"): runAsync { await SwiftConcurrencyWorkloads.fanInTaskGroup(iterations: iterations, inputs: 1_000) }
case ("seq", "actorpromise"): runAsync { await SwiftConcurrencyWorkloads.sequentialPromises(iterations: iterations, steps: 1_000) }
case ("seq", "actors"): runAsync { await SwiftConcurrencyWorkloads.sequentialActorCalls(iterations: iterations, steps: 1_000) }
default:
    print("unknown workload/side: \(workload) \(side)")
    exit(2)
}
