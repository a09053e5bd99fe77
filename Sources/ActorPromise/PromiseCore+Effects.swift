/// Carrying out effects, and the tree walks. Every walk is a loop over an explicit work list, so
/// trees and chains of any depth are handled in constant stack.
extension PromiseCore {
    /// Carries out what a transition decided, with the gate already left.
    nonisolated func carryOut(_ effects: PromiseEffects<Value>) {
        if let body = effects.lazyBody { runLazyBody(body) }
        if let handler = effects.cancelHandler { handler() }
        if !effects.cancelChildren.isEmpty {
            Self.forwardCancel(to: effects.cancelChildren, reason: effects.cancelReason)
        }
        if let outcome = effects.outcome, !effects.observers.isEmpty {
            ThreadState.current.batchingInline { effects.observers.notify(outcome) }
        }
        if effects.parentLostInterest { parentNode?.dependentCancelled() }
        if let adoptee = effects.adopteeLostInterest { adoptee.dependentCancelled() }
        if effects.cancelSelf { cancel(reason: nil) }
        if effects.reportDone { reportDoneUpward() }
        if effects.reattach { reattachUpward() }
    }

    // MARK: Cancellation (R5, R6, R7)

    /// Cancels this promise and, through an explicit work list, every descendant.
    nonisolated func cancel(reason: (any Error)?) {
        var work: [any PromiseNode] = []
        cancel(reason: reason, forwardingInto: &work)
        while let node = work.popLast() { node.cancel(reason: reason, forwardingInto: &work) }
    }

    nonisolated func cancel(reason: (any Error)?, forwardingInto work: inout [any PromiseNode]) {
        guard var effects = perform(.cancel(reason: reason)) else { return }
        work.append(contentsOf: effects.cancelChildren)
        effects.cancelChildren = []
        carryOut(effects)
    }

    private static func forwardCancel(to children: [any PromiseNode], reason: (any Error)?) {
        var work = children
        while let node = work.popLast() { node.cancel(reason: reason, forwardingInto: &work) }
    }

    nonisolated func dependentCancelled() {
        send(.dependentCancelled)
    }

    // MARK: Done reports and reattachment

    nonisolated func childDone(_ child: ObjectIdentifier) -> (any PromiseNode)? {
        guard let effects = perform(.childDone(child)) else { return nil }
        return effects.reportDone ? self : nil
    }

    nonisolated func reattach(_ child: any PromiseNode) -> (any PromiseNode)? {
        guard let effects = perform(.register(observer: nil, child: child, dependent: false)) else { return nil }
        return effects.reattach ? self : nil
    }

    private nonisolated func reportDoneUpward() {
        var child: any PromiseNode = self
        while let parent = child.parentNode, let done = parent.childDone(ObjectIdentifier(child)) {
            child = done
        }
    }

    private nonisolated func reattachUpward() {
        var child: any PromiseNode = self
        while let parent = child.parentNode, let next = parent.reattach(child) {
            child = next
        }
    }

    // MARK: Lazy bodies (R10)

    private nonisolated func runLazyBody(_ body: @Sendable (Resolver<Value>) throws -> Void) {
        let resolver = Resolver(core: self, site: nil)
        do {
            try body(resolver)
        } catch {
            resolver.reject(error)
        }
    }
}
