// What tracking pending promises costs when a release build switches it on
// (`PromiseDiagnostics.tracksPending`), against the same work with it off, both in this binary:
// a binary of its own, so that this code does not change what the optimizer makes of the other
// rows' binary (`Measure`).
//
//   MeasurePending <workload> <side> <iterations>
//   workload: w1 (a chain of 100 `then`s on the global pool, fulfilled and run; per link),
//             w6 (bytes of resident memory per pending promise with one handler)
//   side:     off, on (tracking)
import ActorPromise
import Dispatch
import Foundation

/// W1: a chain of `links` `then`s, built, fulfilled and run to its end, `iterations` times.
func chain(iterations: Int, links: Int) {
    let done = DispatchSemaphore(value: 0)
    for _ in 0..<iterations {
        let (root, resolver) = Promise<Int>.pending()
        var tail = root
        for _ in 0..<links { tail = tail.then { $0 + 1 } }
        tail.then { value in
            precondition(value == links)
            done.signal()
        }
        resolver.fulfill(0)
        done.wait()
    }
}

/// W6: resident bytes per pending promise with one handler (a `then`), `count` of them alive.
func bytesPerPendingPromise(count: Int) -> Int {
    var keep: [(Promise<Int>, Resolver<Int>, Promise<Int>)] = []
    keep.reserveCapacity(count)
    let before = residentBytes()
    for _ in 0..<count {
        let (promise, resolver) = Promise<Int>.pending()
        keep.append((promise, resolver, promise.then { $0 + 1 }))
    }
    let after = residentBytes()
    withExtendedLifetime(keep) {}
    return (after - before) / count
}

func residentBytes() -> Int {
    let statm = (try? String(contentsOfFile: "/proc/self/statm", encoding: .utf8)) ?? "0 0"
    let resident = statm.split(separator: " ").dropFirst().first.flatMap { Int($0) } ?? 0
    return resident * Int(sysconf(Int32(_SC_PAGESIZE)))
}

let arguments = CommandLine.arguments
guard arguments.count == 4, let iterations = Int(arguments[3]), ["on", "off"].contains(arguments[2]) else {
    print("usage: MeasurePending w1|w6 on|off ITERATIONS")
    exit(2)
}
PromiseDiagnostics.tracksPending = arguments[2] == "on"
switch arguments[1] {
case "w1": chain(iterations: iterations, links: 100)
case "w6": print(bytesPerPendingPromise(count: iterations))
default:
    print("unknown workload: \(arguments[1])")
    exit(2)
}
