import Testing
import ActorPromise

/// Every public way to make a promise records where its caller made it, in debug builds, for
/// `String(reflecting:)` and the diagnostics reports (release builds record no site).
@Suite("R14 every public way to make a promise records its caller's site")
struct CreationSiteTests {
    actor Counter { var count = 0 }

    /// Each promise with the line this file made it on.
    static func made() async -> [(name: String, line: Int, description: String)] {
        let time = ManualScheduler()
        let root = Promise(value: 1)
        let (pendingPromise, resolver) = Promise<Int>.pending(); let pendingLine = #line
        _ = resolver
        var made: [(String, Int, String)] = [("pending", pendingLine, String(reflecting: pendingPromise))]
        func add<V>(_ name: String, _ promise: Promise<V>, line: Int = #line) {
            made.append((name, line, String(reflecting: promise)))
        }
        add("Promise<Void>()", Promise<Void>())
        add("value", Promise(value: 2))
        add("error", Promise<Int>(error: TestError()))
        add("result", Promise(result: Result<Int, TestError>.success(3)))
        add("body", Promise<Int> { $0.fulfill(4) })
        add("lazy", Promise<Int>.lazy { $0.fulfill(5) })
        add("async", Promise<Int> { 6 })
        add("after", Promise<Void>.after(.seconds(1), scheduler: time))
        add("retry", Promise<Int>.retry(attempts: 2) { _ in root })
        add("Retryable.run", Retryable { _ in root }.retry(attempts: 2).run())
        add("Retryable.reuse.run", Retryable { _ in root }.reuse().run())
        add("then", root.then { $0 + 1 })
        add("then Void", root.then { _ in })
        add("map", root.map { $0 + 1 })
        add("flatMap", root.flatMap { Promise(value: $0) })
        add("two-handler then", root.then(onFulfilled: { $0 }, onRejected: { _ in 0 }))
        add("then(isolatedTo:)", root.then(isolatedTo: Counter()) { counter, value in counter.count = value })
        add("catch", root.catch { _ in })
        add("recover", root.recover { _ in 0 })
        add("ensure", root.ensure {})
        add("ensureThen", root.ensureThen { Promise<Void>() })
        add("tap", root.tap { _ in })
        add("get", root.get { _ in })
        add("validate", root.validate { $0 > 0 })
        add("timeout", root.timeout(after: .seconds(1), scheduler: time))
        add("delay", root.delay(.seconds(1), scheduler: time))
        add("shared", root.shared())
        add("all", Promise.all([root]))
        add("allSettled", Promise.allSettled([root]))
        add("any", Promise.any([root]))
        add("race", Promise.race([root]))
        add("empty any", Promise<Int>.any([]))
        add("empty race", Promise<Int>.race([]))
        add("zip", zip(root, root))
        add("reduce", Promise.reduce([root], into: 0) { $0 + $1 })
        add("map(maxConcurrency:)", Promise<Int>.map([1], maxConcurrency: 1) { Promise(value: $0) })
        return made
    }

    @Test("R14 String(reflecting:) names this file and the line of each call")
    func everyMaker() async throws {
        for (name, line, description) in await Self.made() {
            #if DEBUG
            #expect(description.contains("made at ActorPromiseTests/CreationSiteTests.swift:\(line)"), "\(name): \(description)")
            #else
            #expect(!description.contains("made at ActorPromise/"), "\(name): \(description)")
            #endif
        }
    }
}
