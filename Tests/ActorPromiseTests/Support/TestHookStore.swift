@testable import ActorPromise

/// A hook store of its own for a state machine driven without a promise (the state actor keeps
/// its closure in its link's handler slot).
struct TestHookStore: HookStore {
    var closure: ErasedClosure?

    mutating func put(_ closure: consuming ErasedClosure) { self.closure = closure }

    mutating func take<Body>(as _: Body.Type) -> Body? { closure.take()?.load(as: Body.self) }

    mutating func drop() { closure = nil }

    /// What the followed promise settled with, for the tests that deliver it.
    var adopteeOutcome: Outcome<Int>?

    func outcome<Value: Sendable>(of adoptee: any PromiseNode, as _: Value.Type) -> Outcome<Value>? {
        adopteeOutcome as? Outcome<Value>
    }
}

extension PromiseStateMachine {
    // The transitions as the tests that do not look at hooks call them: with a store of their own.

    mutating func settle(_ outcome: Outcome<Value>, tree: inout TreeState) -> PromiseEffects<Value> {
        var hooks = TestHookStore()
        return settle(outcome, tree: &tree, hooks: &hooks)
    }

    mutating func cancel(reason: (any Error)?, tree: inout TreeState) -> PromiseEffects<Value> {
        var hooks = TestHookStore()
        return cancel(reason: reason, tree: &tree, hooks: &hooks)
    }

    mutating func follow(_ source: PromiseCore<Value>, follower: ObjectIdentifier, tree: inout TreeState) -> PromiseEffects<Value> {
        var hooks = TestHookStore()
        return follow(source, follower: follower, tree: &tree, hooks: &hooks)
    }
}
