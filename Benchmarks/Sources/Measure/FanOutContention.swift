import ActorPromise
import Dispatch
import Foundation

/// Fan-out contention: `producers` threads each make their share of `roots` pending promises, give
/// each `children` handlers that run inline, and fulfil it. A root's second child makes its side
/// object, which is stored under the process-wide adoption lock; one child makes none, so the
/// difference between the two is what the side object and the lock cost, and how it grows with
/// the producers is what they contend for. Prints wall-clock nanoseconds per root.
enum FanOutContention {
    static func run(children: Int, producers: Int, roots: Int) {
        let perProducer = roots / producers
        let finished = DispatchGroup()
        for _ in 0..<producers { finished.enter() }
        let began = startProducers(producers) { _ in
            for index in 0..<perProducer {
                let (root, resolver) = Promise<Int>.pending()
                var handlers: [Promise<Int>] = []
                handlers.reserveCapacity(children)
                for _ in 0..<children { handlers.append(root.then(on: .inline) { $0 + 1 }) }
                resolver.fulfill(index)
                withExtendedLifetime(handlers) {}
            }
            finished.leave()
        }
        finished.wait()
        let elapsed = DispatchTime.now().uptimeNanoseconds - began
        print(String(format: "%.1f", Double(elapsed) / Double(perProducer * producers)))
    }
}
