import Dispatch
import Testing
@testable import ActorPromise

/// A resolver's release decided by the promise's state actor (R8): a settlement or an adoption the
/// resolver sent is still parked at the actor's gate when the resolver goes, and must win.
///
/// The tests hold the gate themselves, as another thread working on the promise would, so the
/// order is fixed rather than raced for.
@Suite("R8 a resolver released while its promise's gate is busy", .serialized)
struct ResolverReleaseTests {
    /// Abandonment reports naming `line` of this file since the test began (debug builds, which
    /// record sites; other suites' reports arrive too and name other sites).
    struct Reports {
        let start: Int
        func count(line: Int) -> Int {
            AbandonmentLog.reports(site: "ActorPromiseTests/ResolverReleaseTests.swift:\(line)", since: start).count
        }
    }

    /// Runs `body` with the process's abandonment log installed (``AbandonmentLog``).
    func recordingAbandonments(_ body: (Reports) async throws -> Void) async throws {
        AbandonmentLog.install()
        try await body(Reports(start: AbandonmentLog.count))
    }

    /// Runs `body` while the test holds `promise`'s gate, as another thread working on the promise
    /// would: what `body` sends parks, and runs in arrival order when the gate is left.
    func holdingGate(of promise: Promise<Int>, _ body: () -> Void) {
        let entered: Void? = promise.core.withStateIfGateFree { _, _ in body() }
        #expect(entered != nil)
    }

    @Test("R8 R1 a resolver released right after fulfilling, its fulfilment parked: fulfilled, nothing reported")
    func fulfilledWhileBusy() async throws {
        try await recordingAbandonments { (reports: Reports) async throws in
            let line = #line + 1
            var (promise, resolver) = Promise<Int>.pending() as (Promise<Int>, Resolver<Int>?)
            holdingGate(of: promise) {
                resolver?.fulfill(7)
                resolver = nil
            }
            #expect(try await promise.value == 7)
            #expect(reports.count(line: line) == 0, "the abandonment was not reported")
        }
    }

    @Test("R8 R3 a resolver released right after resolve(with:), the adoption parked: the promise follows, nothing reported")
    func followingWhileBusy() async throws {
        try await recordingAbandonments { (reports: Reports) async throws in
            let line = #line + 1
            var (promise, resolver) = Promise<Int>.pending() as (Promise<Int>, Resolver<Int>?)
            let (source, sourceResolver) = Promise<Int>.pending()
            holdingGate(of: promise) {
                resolver?.resolve(with: source)
                resolver = nil
            }
            #expect(promise.isPending, "it follows a pending promise")
            sourceResolver.fulfill(8)
            #expect(try await promise.value == 8)
            #expect(reports.count(line: line) == 0)
        }
    }

    @Test("R8 a resolver released unused while the gate is busy: abandoned once, reported once, with the site in debug builds")
    func abandonedWhileBusy() async throws {
        try await recordingAbandonments { (reports: Reports) async throws in
            let line = #line + 1
            var (promise, resolver) = Promise<Int>.pending() as (Promise<Int>, Resolver<Int>?)
            holdingGate(of: promise) {
                _ = resolver.take()
                #expect(promise.isPending, "parked behind the gate")
            }
            await #expect { try await promise.value } throws: { ($0 as? PromiseError)?.code == .abandoned }
            #if DEBUG
            #expect(reports.count(line: line) == 1)
            #endif
        }
    }

    @Test("R8 R1 a resolver fulfils and goes on one thread while another registers handlers: fulfilled every time, never reported abandoned (2,000 rounds)")
    func fulfilRacingRegistrations() async throws {
        try await recordingAbandonments { (reports: Reports) async throws in
            let line = #line + 4
            for _ in 0..<2_000 {
                // The box holds the resolver's only reference, so it goes where the box lets go.
                let (promise, held): (Promise<Int>, Locked<Resolver<Int>?>) = {
                    let (promise, resolver) = Promise<Int>.pending()
                    return (promise, Locked(resolver))
                }()
                let handlers = Locked<[Promise<Int>]>([])
                DispatchQueue.concurrentPerform(iterations: 2) { index in
                    if index == 0 {
                        // Keeps the gate busy: each registration holds it for a moment.
                        for _ in 0..<20 {
                            let handler = promise.then(on: .inline) { $0 }
                            handlers.withLock { $0.append(handler) }
                        }
                    } else {
                        // The last reference leaves this scope right after the fulfilment.
                        let resolver = held.withLock { $0.take() }
                        resolver?.fulfill(7)
                    }
                }
                #expect(try await promise.value == 7)
                for handler in handlers.current { #expect(try await handler.value == 7) }
            }
            #expect(reports.count(line: line) == 0, "no fulfilled promise was reported abandoned")
        }
    }
}
