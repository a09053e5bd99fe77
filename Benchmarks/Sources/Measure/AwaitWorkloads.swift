import ActorPromise
import Dispatch

/// W5: awaiting a promise, against the continuation primitives it is built from.
enum AwaitWorkloads {
    static func awaitSettledPromise(iterations: Int) async {
        let promise = Promise(value: 1)
        var sum = 0
        for _ in 0..<iterations { sum &+= try! await promise.value }
        precondition(sum == iterations)
    }

    static func unsafeContinuationInline(iterations: Int) async {
        var sum = 0
        for _ in 0..<iterations { sum &+= await withUnsafeContinuation { $0.resume(returning: 1) } }
        precondition(sum == iterations)
    }

    static func checkedContinuationInline(iterations: Int) async {
        var sum = 0
        for _ in 0..<iterations { sum &+= await withCheckedContinuation { $0.resume(returning: 1) } }
        precondition(sum == iterations)
    }

    static func awaitPromiseFromOtherThread(iterations: Int) async {
        var sum = 0
        for _ in 0..<iterations {
            // Lazy: the fulfilment is submitted when the await registers, so it never races the
            // await (as in the continuation references, which submit from inside the closure).
            let promise = Promise<Int>.lazy { resolver in
                WorkerPool.global.submit(ClosureWorkItem { resolver.fulfill(1) })
            }
            sum &+= try! await promise.value
        }
        precondition(sum == iterations)
    }

    static func unsafeContinuationFromOtherThread(iterations: Int) async {
        var sum = 0
        for _ in 0..<iterations {
            sum &+= await withUnsafeContinuation { continuation in
                WorkerPool.global.submit(ClosureWorkItem { continuation.resume(returning: 1) })
            }
        }
        precondition(sum == iterations)
    }

    static func checkedContinuationFromOtherThread(iterations: Int) async {
        var sum = 0
        for _ in 0..<iterations {
            sum &+= await withCheckedContinuation { continuation in
                WorkerPool.global.submit(ClosureWorkItem { continuation.resume(returning: 1) })
            }
        }
        precondition(sum == iterations)
    }

    static func taskValue(iterations: Int) async {
        var sum = 0
        for _ in 0..<iterations { sum &+= await Task { 1 }.value }
        precondition(sum == iterations)
    }
}
