import Dispatch
import Testing
import ActorPromise

@Suite("R8 abandonment, R10 lazy bodies")
struct AbandonmentTests {
    /// The abandonments these tests provoke are recorded, not printed as warnings.
    init() { AbandonmentLog.install() }

    @Test("R8 a pending promise whose resolver is released rejects with abandoned, naming its site in debug builds")
    func abandoned() async throws {
        #if DEBUG
        let site: String? = "ActorPromiseTests/AbandonmentTests.swift:\(#line + 5)"
        #else
        let site: String? = nil // release builds record no sites
        #endif
        let promise: Promise<Int> = {
            let (promise, resolver) = Promise<Int>.pending()
            _ = resolver
            return promise
        }()
        await #expect {
            try await promise.value
        } throws: { error in
            let error = error as? PromiseError
            return error?.code == .abandoned && error?.site == site
        }
    }

    @Test("R8 a waiting child of an abandoned promise is rejected too, not left waiting")
    func abandonedChain() async throws {
        let tail: Promise<Int> = {
            let (root, resolver) = Promise<Int>.pending()
            _ = resolver
            return root.then { $0 + 1 }.then { $0 + 1 }
        }()
        await #expect { try await tail.value } throws: { ($0 as? PromiseError)?.code == .abandoned }
    }

    @Test("R8 a resolver released after settling does not report anything")
    func settledNotAbandoned() async throws {
        let promise: Promise<Int> = {
            let (promise, resolver) = Promise<Int>.pending()
            resolver.fulfill(1)
            return promise
        }()
        #expect(try await promise.value == 1)
    }

    @Test("R10 a lazy body runs only when first observed, and once")
    func lazyBody() async throws {
        let runs = Locked(0)
        let promise = Promise<Int>.lazy { resolver in
            runs.increment()
            resolver.fulfill(3)
        }
        #expect(runs.current == 0)
        #expect(promise.isPending)
        let first = promise.then { $0 + 1 }
        let second = promise.then { $0 + 2 }
        #expect(try await first.value == 4)
        #expect(try await second.value == 5)
        #expect(try await promise.value == 3)
        #expect(runs.current == 1)
    }

    @Test("R10 a lazy promise cancelled before it is observed never runs its body")
    func lazyCancelled() async throws {
        let runs = Locked(0)
        let promise = Promise<Int>.lazy { _ in runs.increment() }
        promise.cancel()
        await #expect { try await promise.value } throws: { $0.isCancellation }
        #expect(runs.current == 0)
    }

    @Test("R10 a lazy body that throws rejects the promise")
    func lazyThrows() async throws {
        let promise = Promise<Int>.lazy { _ in throw TestError(id: 10) }
        await #expect(throws: TestError(id: 10)) { try await promise.value }
    }

    @Test("R10 R6 a lazy promise observed from two threads while a third cancels it: the body runs at most once, a handler it registers runs exactly when it ran, every observer hears the cancellation")
    func lazyRacingCancel() async throws {
        for _ in 0..<2_000 {
            let runs = Locked(0), stopped = Locked(0)
            // Kept, so that the promise is not abandoned (R8) before the cancel reaches it.
            let kept = Locked<Resolver<Int>?>(nil)
            let promise = Promise<Int>.lazy { resolver in
                runs.increment()
                // Never fulfilled: whether the cancel finds it pending or already cancelled, the
                // handler runs once (at once in the second case).
                resolver.onCancel { stopped.increment() }
                kept.withLock { $0 = resolver }
            }
            let observers = Locked<[Promise<Int>]>([])
            DispatchQueue.concurrentPerform(iterations: 3) { index in
                if index == 2 {
                    promise.cancel()
                } else {
                    let observer = promise.then(on: .inline) { $0 }
                    observers.withLock { $0.append(observer) }
                }
            }
            for observer in observers.current {
                let outcome = await observer.guardedAgainstHang().outcome
                guard case .failure(let error) = outcome else {
                    Issue.record("an observer was fulfilled")
                    continue
                }
                #expect(error.isCancellation)
            }
            #expect(runs.current <= 1)
            #expect(stopped.current == runs.current, "the body's cancel handler runs exactly when the body ran")
        }
    }
}
