import ActorPromise
import Foundation

// The Semantics article's R15 example, as written there (`TaskLocalTests.articleExample` runs it).

enum Request {
    @TaskLocal static var id = "none"
}

func show(_ path: String, from store: RowStore, cache: SerialQueue) -> Promise<Void> {
    Request.$id.withValue("req-\(path)") {
        store.load(path)                                    // settled on the store's own thread
            .then { rows in
                log("\(Request.id): \(rows.count) rows")    // on the pool
                return rows
            }
            .then(on: cache) { rows in
                log("\(Request.id): cached")                 // on a serial queue
                return rows.count
            }
            .then(on: .main) { count in
                log("\(Request.id): showing \(count)")       // on the main actor
            }
    }
}

// What the example leaves out: a store that answers on a thread of its own, and a log.

final class RowStore: Sendable {
    func load(_ path: String) -> Promise<[String]> {
        let (promise, resolver) = Promise<[String]>.pending()
        Thread { Request.$id.withValue("store thread") { resolver.fulfill(["a", "b"]) } }.start()
        return promise
    }
}

let snippetLog = Locked<[String]>([])

func log(_ line: String) { snippetLog.withLock { $0.append(line) } }

// swift-service-context declares its context as `@TaskLocal public static var current:
// ServiceContext?` in an extension of `ServiceContext`. A stand-in of the same shape shows that a
// tracing context is registered like any other key, with no dependency on that package.

struct TracingContext: Sendable {
    var traceID: String
}

extension TracingContext {
    @TaskLocal static var current: TracingContext?
}
