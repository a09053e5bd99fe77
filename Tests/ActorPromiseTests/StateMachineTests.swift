import Testing
@testable import ActorPromise

/// The state machine, driven directly: no threads, no actors.
@Suite("Promise state machine")
struct StateMachineTests {
    final class Probe: Observer<Int>, @unchecked Sendable {}

    @Test("R1 settle once; the second settle has no effect")
    func settleOnce() throws {
        var machine = PromiseStateMachine<Int>()
        let first = machine.settle(.success(1))
        #expect(first.outcome != nil)
        let second = machine.settle(.success(2))
        #expect(second.outcome == nil)
        #expect(try machine.outcome?.get() == 1)
    }

    @Test("R2 observers registered while pending are handed out at settlement")
    func observersHandedOut() {
        var machine = PromiseStateMachine<Int>()
        let pendingRegistration = machine.register(Probe(), child: nil, dependent: false)
        #expect(pendingRegistration.observers.isEmpty)
        let settled = machine.settle(.success(1))
        #expect(!settled.observers.isEmpty)
        let late = machine.register(Probe(), child: nil, dependent: false)
        #expect(!late.observers.isEmpty, "a late observer gets the outcome at once")
        #expect(late.outcome != nil)
    }

    @Test("R5 cancel settles a pending machine once and reports lost interest")
    func cancelTransitions() {
        var machine = PromiseStateMachine<Int>()
        let effects = machine.cancel(reason: nil)
        #expect(effects.parentLostInterest)
        #expect(machine.isCancelled)
        #expect((machine.outcome.flatMap { try? $0.get() }) == nil)
        let again = machine.cancel(reason: nil)
        #expect(!again.parentLostInterest && again.outcome == nil)
    }

    @Test("R5 cancel of a settled machine keeps the outcome")
    func cancelSettled() throws {
        var machine = PromiseStateMachine<Int>(outcome: .success(3))
        let effects = machine.cancel(reason: nil)
        #expect(effects.outcome == nil)
        #expect(!effects.parentLostInterest)
        #expect(try machine.outcome?.get() == 3)
    }

    @Test("R7 interest: cancelSelf only when every dependent was cancelled")
    func interest() {
        var machine = PromiseStateMachine<Int>(tracksInterest: true)
        _ = machine.register(nil, child: nil, dependent: true)
        _ = machine.register(nil, child: nil, dependent: true)
        #expect(!machine.dependentCancelled().cancelSelf)
        #expect(machine.dependentCancelled().cancelSelf)
    }

    @Test("R10 the lazy body is handed out with the first observer only")
    func lazyHook() {
        var machine = PromiseStateMachine<Int>(hook: .lazy { _ in })
        #expect(machine.register(Probe(), child: nil, dependent: false).lazyBody != nil)
        #expect(machine.register(Probe(), child: nil, dependent: false).lazyBody == nil)
    }

    @Test("a settled machine without children is done and reports it once")
    func doneReport() {
        var machine = PromiseStateMachine<Int>()
        #expect(machine.settle(.success(1)).reportDone)
        #expect(machine.isDone)
    }
}
