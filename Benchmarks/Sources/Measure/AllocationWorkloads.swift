import ActorPromise
import NIOCore
import NIOEmbedded

/// Allocation peers of SwiftNIO's own allocation guards (its `test_01_resources` workloads
/// "lots of callbacks" and "erase result"): the same shapes written for both libraries, handlers
/// run synchronously (ActorPromise `.inline`, NIO on an `EmbeddedEventLoop`), counted per
/// iteration by `compare.sh`.
enum AllocationWorkloads {
    struct Failure: Error {}

    /// Eleven derived steps of every kind — a handler returning a settled promise, throwing and
    /// plain transforms, a rejection, a recovery returning a rejected promise, one rethrowing, one
    /// recovering, a do-nothing `ensure`, a map to an optional and back — then three observers of
    /// the end (success, failure, either), and the root is fulfilled.
    static func lotsOfCallbacks(iterations: Int) {
        for _ in 0..<iterations {
            let (root, resolver) = Promise<Int>.pending()
            let end = root
                .then(on: .inline) { value in Promise(value: value + 1) }
                .then(on: .inline) { (value: Int) throws -> Int in value + 2 }
                .map(on: .inline) { $0 + 2 }
                .then(on: .inline) { (_: Int) throws -> Int in throw Failure() }
                .recover(on: .inline) { (error: any Error) -> Promise<Int> in Promise(error: error) }
                .recover(on: .inline) { (error: any Error) throws -> Int in throw error }
                .recover(on: .inline) { (_: any Error) -> Int in -1 }
                .map(on: .inline) { $0 + 1 }
                .ensure(on: .inline) {}
                .map(on: .inline) { Optional($0) }
                .map(on: .inline) { $0 ?? 5 }
            end.then(on: .inline) { (_: Int) in }
            end.catch(on: .inline) { (_: any Error) in }
            end.whenComplete(on: .inline) { (_: Result<Int, any Error>) in }
            resolver.fulfill(0)
        }
    }

    static func lotsOfCallbacksNIO(iterations: Int) {
        let loop = EmbeddedEventLoop()
        for _ in 0..<iterations {
            let promise = loop.makePromise(of: Int.self)
            let end = promise.futureResult
                .flatMap { loop.makeSucceededFuture($0 + 1) }
                .flatMapThrowing { $0 + 2 }
                .map { $0 + 2 }
                .flatMapThrowing { (_: Int) -> Int in throw Failure() }
                .flatMapError { loop.makeFailedFuture($0) }
                .flatMapErrorThrowing { error -> Int in throw error }
                .recover { _ in -1 }
                .map { $0 + 1 }
                .always { _ in }
                .map { Optional($0) }
                .unwrap(orReplace: 5)
            end.whenSuccess { _ in }
            end.whenFailure { _ in }
            end.whenComplete { _ in }
            promise.succeed(0)
        }
    }

    /// A value mapped to nothing, and nothing mapped to nothing: closures that capture nothing.
    static func eraseResult(iterations: Int) {
        for _ in 0..<iterations {
            let (root, resolver) = Promise<Int>.pending()
            root.map(on: .inline) { (_: Int) in }.map(on: .inline) { (_: Void) in }
            resolver.fulfill(0)
        }
    }

    static func eraseResultNIO(iterations: Int) {
        let loop = EmbeddedEventLoop()
        for _ in 0..<iterations {
            let promise = loop.makePromise(of: Int.self)
            _ = promise.futureResult.map { (_: Int) in }.map { (_: Void) in }
            promise.succeed(0)
        }
    }
}
