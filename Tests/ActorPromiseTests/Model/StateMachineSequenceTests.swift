import Foundation
import Testing
@testable import ActorPromise

/// Every sequence of events up to a length, from several starting promises, through the
/// library's state machine and through ``MachineModel`` side by side: after every event the two
/// must agree on what it caused and on the state it left, and the trace must keep the Semantics
/// rules that hold whatever the model says (R1, R2, R5, R6, R10).
///
/// The length is 6 in release builds (3.3 million sequences, about 15 s on two cores) and 5 in
/// debug builds, where the same work takes fourteen times as long; `ACTORPROMISE_SEQUENCE_LENGTH`
/// sets it. CI runs both. Single-threaded: there is nothing here for the thread sanitizer.
@Suite("Promise state machine, every sequence of events")
struct StateMachineSequenceTests {
    #if DEBUG
    static let defaultLength = 5
    #else
    static let defaultLength = 6
    #endif
    static let length = TestSettings.integer("ACTORPROMISE_SEQUENCE_LENGTH", default: defaultLength)

    static let starts: [MachineModel.Start] = [
        .init(tracksInterest: true, isLazy: false, cancelAfterSource: false),
        .init(tracksInterest: false, isLazy: false, cancelAfterSource: true),
        .init(tracksInterest: true, isLazy: true, cancelAfterSource: false),
    ]

    @Test("every sequence of events agrees with the model and keeps the rules", arguments: starts.indices)
    func everySequence(start index: Int) {
        let start = Self.starts[index]
        var sequences = 0
        var failures: [String] = []
        var prefix: [MachineModel.Event] = []

        func explore(_ model: MachineModel) {
            guard failures.count < 5 else { return }
            guard prefix.count < Self.length else {
                sequences += 1
                if let failure = Self.replay(prefix, from: start) { failures.append(failure) }
                return
            }
            for event in model.enabled {
                var next = model
                _ = next.apply(event)
                prefix.append(event)
                explore(next)
                prefix.removeLast()
            }
        }
        explore(MachineModel(start))

        #expect(failures.isEmpty, "\(start):\n\(failures.joined(separator: "\n"))")
        #expect(sequences > 50_000 || Self.length < 5, "only \(sequences) sequences of \(Self.length) events")
    }

    /// Replays `events` on a fresh model and a fresh state machine; the first disagreement or
    /// broken rule, described, or `nil`.
    static func replay(_ events: [MachineModel.Event], from start: MachineModel.Start) -> String? {
        var model = MachineModel(start)
        var machine = MachineHarness(start)
        var trace = Trace()
        for (index, event) in events.enumerated() {
            let settledBefore = machine.settlement
            let expected = model.apply(event)
            let actual = machine.apply(event)
            let problem: String? =
                if actual != expected { "caused \(actual), the model \(expected)" }
                else if let state = stateMismatch(model, machine) { state }
                else { trace.record(event, actual, settledBefore: settledBefore, machine: machine, model: model) }
            if let problem {
                return "\(events[...index].map(\.description).joined(separator: ", ")): \(problem)"
            }
        }
        return nil
    }

    /// Where the state machine's state differs from the model's, or `nil`.
    static func stateMismatch(_ model: MachineModel, _ harness: MachineHarness) -> String? {
        let machine = harness.machine, tree = harness.tree
        var differences: [String] = []
        func check<T: Equatable>(_ name: String, _ actual: T, _ expected: T) {
            if actual != expected { differences.append("\(name) \(actual), the model \(expected)") }
        }
        check("outcome", harness.settlement, model.outcome)
        check("settled", tree.flags[.settled], model.outcome != nil)
        check("cancelled", tree.flags[.cancelled], model.isCancelled)
        check("cancelledWhilePending", machine.flags[.cancelledWhilePending], model.cancelledWhilePending)
        check("cancelledAfterSource", machine.flags[.cancelledAfterSource], model.cancelledAfterSource)
        check("rejected", tree.flags[.rejected], model.outcome.map { if case .value = $0 { false } else { true } } ?? false)
        check("delivering", machine.flags[.delivering], model.isDelivering)
        check("hasOrderedObserver", machine.flags[.orderedObserver], model.hasOrderedObserver)
        check("waiting", machine.observers.count, model.waiting.count)
        check("dependents", tree.dependents, UInt32(model.dependents))
        check("done", tree.flags[.done], model.isDone)
        check("following", tree.adoptee != nil, model.isFollowing)
        let hook: PromiseStateMachine<Int>.Hook = model.lazyBodyWaits ? .lazy : model.handlerWaits ? .onCancel : .none
        check("hook", machine.hook, hook)
        check("stored closure", harness.hooks.closure != nil, model.lazyBodyWaits || model.handlerWaits)
        if let status = harness.status {
            var expected: PromiseStatus = []
            if model.outcome != nil { expected.insert(.settled) }
            if model.isCancelled { expected.insert(.cancelled) }
            if model.cancelledWhilePending { expected.insert(.cancelledWhilePending) }
            if model.cancelledAfterSource { expected.insert(.cancelledAfterSource) }
            if model.start.tracksInterest { expected.insert(.tracksInterest) }
            if model.observesInline { expected.insert(.runsInline) }
            if model.isFollowing { expected.insert(.following) }
            check("status", status.rawValue, expected.rawValue)
        }
        return differences.isEmpty ? nil : differences.joined(separator: "; ")
    }

    /// The rules a trace keeps whatever the model says, checked on what the state machine did.
    struct Trace {
        var handedOut: [Int] = []
        var lazyBodyRuns = 0
        var handlerRuns = 0

        /// Records one event's effects; the rule it broke, or `nil`.
        mutating func record(
            _ event: MachineModel.Event, _ step: MachineModel.Step, settledBefore: MachineModel.Settlement?,
            machine: MachineHarness, model: MachineModel
        ) -> String? {
            if let settledBefore, machine.settlement != settledBefore {
                return "R1: settled again, \(settledBefore) became \(String(describing: machine.settlement))"
            }
            if machine.settlement == nil && !step.handedOut.isEmpty { return "R2: an observer handed out while pending" }
            for number in step.handedOut where handedOut.contains(number) { return "R2: observer \(number) handed out twice" }
            handedOut += step.handedOut
            let ordered = model.registered.filter { !$0.inline }.map(\.number)
            let orderedHanded = handedOut.filter { ordered.contains($0) }
            if orderedHanded != Array(ordered.prefix(orderedHanded.count)) {
                return "R2: observers on contexts handed out as \(orderedHanded), registered as \(ordered)"
            }
            if machine.settlement != nil && !machine.machine.flags[.delivering] && handedOut.count != model.registered.count {
                return "R2: settled, no delivery under way, and observers \(handedOut) of \(model.registered.count) handed out"
            }
            if event == .cancel && settledBefore == .cancelled && step != MachineModel.Step() {
                return "R5: a second cancel did something: \(step)"
            }
            if step.cancellation?.handler == true { handlerRuns += 1 }
            if handlerRuns > 0 && !machine.machine.flags[.cancelledWhilePending] {
                return "R6: a cancellation handler ran, but no cancel found the promise pending"
            }
            if step.runsLazyBody { lazyBodyRuns += 1 }
            if lazyBodyRuns > 1 { return "R10: the lazy body ran twice" }
            return nil
        }
    }
}
