import ActorPromise
import Dispatch

/// What failure traces (R16) cost when a release build switches them on: W1 with traces on (a
/// chain that succeeds, so every link pays only for keeping its site), and a chain that fails —
/// its root rejected, the rejection passed through every link to a `catch` — with traces off and
/// on. The plain W1 row is the first with traces off.
enum TracedWorkloads {
    static func chain(iterations: Int) {
        PromiseTrace.isEnabled = true
        ActorPromiseWorkloads.chain(iterations: iterations, links: 100, on: .global)
    }

    struct Failure: Error {}

    /// `links` links that pass a rejection on, then a `catch`: the rejection's path, per link.
    static func failedChain(iterations: Int, traced: Bool) {
        PromiseTrace.isEnabled = traced
        let done = DispatchSemaphore(value: 0)
        for _ in 0..<iterations {
            let (root, resolver) = Promise<Int>.pending()
            var tail = root
            for _ in 0..<100 { tail = tail.then(on: .global) { $0 + 1 } }
            tail.catch(on: .global) { _ in done.signal() }
            resolver.reject(Failure())
            done.wait()
        }
    }
}
