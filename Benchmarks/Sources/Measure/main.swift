// Runs one workload of DESIGN.md §6 a given number of times, for one library, and exits.
// `compare.sh` runs it under callgrind at two sizes and subtracts, so start-up costs cancel out.
//
//   Measure <workload> <library> <iterations>
//   workload: w1 (100-link chain) | w3 (create, fulfil, one handler) | w6 (bytes per pending promise)
//   library:  actorpromise | actorpromise-inline | nio
import Foundation

let arguments = CommandLine.arguments
guard arguments.count == 4, let iterations = Int(arguments[3]) else {
    print("usage: Measure w1|w3|w6 actorpromise|actorpromise-inline|nio ITERATIONS")
    exit(2)
}
let workload = arguments[1]
let library = arguments[2]

switch (workload, library) {
case ("w1", "actorpromise"): ActorPromiseWorkloads.chain(iterations: iterations, links: 100, inline: false)
case ("w1", "actorpromise-inline"): ActorPromiseWorkloads.chain(iterations: iterations, links: 100, inline: true)
case ("w1", "nio"): NIOWorkloads.chain(iterations: iterations, links: 100)
case ("w3", "actorpromise"): ActorPromiseWorkloads.lifecycle(iterations: iterations, inline: false)
case ("w3", "actorpromise-inline"): ActorPromiseWorkloads.lifecycle(iterations: iterations, inline: true)
case ("w3", "nio"): NIOWorkloads.lifecycle(iterations: iterations)
case ("w6", "actorpromise"): print(ActorPromiseWorkloads.bytesPerPendingPromise(count: iterations))
case ("w6", "nio"): print(NIOWorkloads.bytesPerPendingPromise(count: iterations))
default:
    print("unknown workload/library: \(workload) \(library)")
    exit(2)
}
