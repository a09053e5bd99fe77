import ActorPromise
import NIOCore

/// Resident bytes per pending promise with `handlers` handlers, each handler's derived promise
/// kept (W6 is the one-handler row).
enum MemoryWorkloads {
    static func actorPromise(count: Int, handlers: Int) -> Int {
        var keep: [(Resolver<Int>, [Promise<Int>])] = []
        keep.reserveCapacity(count)
        let before = heapInUse()
        for _ in 0..<count {
            let (promise, resolver) = Promise<Int>.pending()
            keep.append((resolver, [promise] + (0..<handlers).map { _ in promise.then { $0 + 1 } }))
        }
        let after = heapInUse()
        withExtendedLifetime(keep) {}
        return (after - before) / count - arrayBytes(handlers + 1)
    }

    static func nio(count: Int, handlers: Int) -> Int {
        let loop = NIOWorkloads.group.next()
        return try! loop.submit {
            var keep: [(EventLoopPromise<Int>, [EventLoopFuture<Int>])] = []
            keep.reserveCapacity(count)
            let before = heapInUse()
            for _ in 0..<count {
                let promise = loop.makePromise(of: Int.self)
                keep.append((promise, [promise.futureResult] + (0..<handlers).map { _ in promise.futureResult.map { $0 + 1 } }))
            }
            let after = heapInUse()
            for (promise, _) in keep { promise.succeed(0) }
            return (after - before) / count - arrayBytes(handlers + 1)
        }.wait()
    }

    /// What the harness's own array of `count` references costs (header and elements, rounded
    /// to malloc's 16 bytes), so that only the promises are counted.
    static func arrayBytes(_ count: Int) -> Int {
        (32 + 8 * count + 8 + 15) / 16 * 16
    }
}
