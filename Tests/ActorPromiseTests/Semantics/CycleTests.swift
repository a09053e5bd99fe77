import Testing
import Dispatch
import ActorPromise

@Suite("R13 adoption cycles are rejected")
struct CycleTests {
    static func code(of promise: Promise<Int>) async -> PromiseError.Code? {
        guard case .failure(let error) = await promise.guardedAgainstHang().outcome else { return nil }
        return (error as? PromiseError)?.code
    }

    @Test("R13 a follows b and b follows a: both reject with adoptionCycle, observers included")
    func twoCycle() async throws {
        let (a, ra) = Promise<Int>.pending()
        let (b, rb) = Promise<Int>.pending()
        let observed = Countdown(2)
        a.catch { _ in observed.tick() }
        b.catch { _ in observed.tick() }
        ra.resolve(with: b)
        rb.resolve(with: a)
        #expect(await Self.code(of: a) == .adoptionCycle)
        #expect(await Self.code(of: b) == .adoptionCycle)
        try await observed.wait()
    }

    @Test("R13 a cycle of three promises rejects every member")
    func threeCycle() async throws {
        let (a, ra) = Promise<Int>.pending()
        let (b, rb) = Promise<Int>.pending()
        let (c, rc) = Promise<Int>.pending()
        ra.resolve(with: b)
        rb.resolve(with: c)
        rc.resolve(with: a)
        for promise in [a, b, c] { #expect(await Self.code(of: promise) == .adoptionCycle) }
    }

    @Test("R13 a handler that returns a promise following the handler's own result is a cycle")
    func throughHandlers() async throws {
        let (start, resolver) = Promise<Int>.pending()
        let (inner, innerResolver) = Promise<Int>.pending()
        let outer = start.then { _ in inner }
        innerResolver.resolve(with: outer)
        resolver.fulfill(1)
        #expect(await Self.code(of: outer) == .adoptionCycle)
        #expect(await Self.code(of: inner) == .adoptionCycle)
    }

    @Test("R13 following a promise that followed into a cycle which has since settled is no cycle")
    func settledChainIsNoCycle() async throws {
        let (a, ra) = Promise<Int>.pending()
        let (b, rb) = Promise<Int>.pending()
        ra.resolve(with: b)
        rb.fulfill(5)
        #expect(try await a.value == 5)
        let (c, rc) = Promise<Int>.pending()
        rc.resolve(with: a)
        #expect(try await c.value == 5)
    }

    @Test("R13 two threads closing the same cycle at once: never both miss it", arguments: [0, 1, 2, 3])
    func concurrentClosing(seed: Int) async throws {
        for _ in 0..<500 {
            let (a, ra) = Promise<Int>.pending()
            let (b, rb) = Promise<Int>.pending()
            let started = Countdown(2)
            DispatchQueue.global().async { ra.resolve(with: b); started.tick() }
            DispatchQueue.global().async { rb.resolve(with: a); started.tick() }
            try await started.wait()
            #expect(await Self.code(of: a) == .adoptionCycle)
            #expect(await Self.code(of: b) == .adoptionCycle)
        }
    }
}
