@testable import ActorPromise

/// The library's state machine for one promise (``PromiseStateMachine`` and ``TreeState``),
/// driven by ``MachineModel/Event``s as the state actor would drive it, with what each
/// transition returns translated into a ``MachineModel/Step``. No threads, no gate: the follow-up
/// work the state actor would do at once after a transition (run the lazy body it was handed,
/// cancel itself on lost interest) is done here, in the same step.
struct MachineHarness {
    struct Rejection: Error {}

    let start: MachineModel.Start
    var machine: PromiseStateMachine<Int>
    var tree: TreeState
    var hooks = TestHookStore()
    /// The last transition's published status (transitions of the tree half publish none).
    var status: PromiseStatus?
    private var numbers: [ObjectIdentifier: Int] = [:]
    private var childNumbers: [ObjectIdentifier: Int] = [:]
    private var children: [PromiseCore<Int>] = []
    private var registered = 0
    private var fulfilments = 0
    /// A pending promise to follow; one that stands for a promise following this one, to close a
    /// cycle; and one that stands for this promise. None of them changes: shared by every run.
    private static let source = PromiseCore<Int>(PromiseStateMachine())
    private static let cycle = PromiseCore<Int>(PromiseStateMachine())
    private static let me = PromiseCore<Int>(PromiseStateMachine())

    init(_ start: MachineModel.Start) {
        self.start = start
        self.machine = PromiseStateMachine(hook: start.isLazy ? .lazy : .none)
        self.tree = TreeState(isSettled: false, tracksInterest: start.tracksInterest)
        if start.isLazy { hooks = TestHookStore(closure: ErasedClosure(LazyBody<Int> { _ in })) }
    }

    mutating func apply(_ event: MachineModel.Event) -> MachineModel.Step {
        switch event {
        case .fulfil:
            fulfilments += 1
            return perform(.settle(.success(fulfilments)))
        case .reject: return perform(.settle(.failure(Rejection())))
        case .abandon: return perform(.abandon(PromiseError(.abandoned)))
        case .onCancel: return perform(.onCancel {})
        case .follow: return perform(.follow(Self.source, follower: ObjectIdentifier(Self.me)))
        case .followCycle: return perform(.follow(Self.cycle, follower: ObjectIdentifier(Self.cycle)))
        case .adopteeSettled:
            hooks.adopteeOutcome = .success(100)
            defer { hooks.adopteeOutcome = nil }
            return perform(.adopteeSettled)
        case .observeInline:
            return perform(.observe(number(CallbackObserver<Int>.make { _ in })))
        case .observeOrdered:
            return perform(.observe(number(Observer<Int>(context: WorkerPool.global) { _ in })))
        case .derive:
            let child = PromiseCore<Int>(PromiseStateMachine())
            childNumbers[ObjectIdentifier(child)] = children.count
            children.append(child)
            return perform(.derive(number(child)))
        case .addDependent: return perform(.addDependent)
        case .cancel: return cancel()
        case .endDelivery: return perform(.endDelivery)
        case .childDone(let child): return performTree(.childDone(children[child]))
        case .reattach(let child): return performTree(.reattach(children[child]))
        case .dependentCancelled: return performTree(.dependentCancelled)
        }
    }

    /// How the promise settled, as the model names it.
    var settlement: MachineModel.Settlement? {
        switch machine.outcome {
        case nil: return nil
        case .success(let value)?: return .value(value)
        case .failure(let error)?:
            if error is Rejection { return .rejected }
            if error.isCancellation { return .cancelled }
            switch (error as? PromiseError)?.code {
            case .abandoned?: return .abandoned
            case .adoptionCycle?: return .cycle
            default: return nil
            }
        }
    }

    private mutating func number<Registered: OutcomeObserver>(_ observer: Registered) -> Registered {
        numbers[ObjectIdentifier(observer)] = registered
        registered += 1
        return observer
    }

    private mutating func cancel() -> MachineModel.Step {
        perform(.cancel(reason: nil, afterSource: start.cancelAfterSource))
    }

    private mutating func perform(_ op: PromiseOp<Int>) -> MachineModel.Step {
        let effects = machine.apply(op, tree: &tree, hooks: &hooks)
        status = effects.status
        return translate(effects)
    }

    private mutating func performTree(_ op: TreeOp) -> MachineModel.Step {
        status = nil
        switch tree.apply(op) {
        case .nothing: return MachineModel.Step()
        case .reportDone: return MachineModel.Step(reportsDone: true)
        case .reattachUpward: return MachineModel.Step(reattaches: true)
        case .cancelSelf:
            var step = cancel()
            step.cancelsItself = true
            return step
        }
    }

    private mutating func translate(_ effects: PromiseEffects<Int>) -> MachineModel.Step {
        var step = MachineModel.Step()
        step.settled = effects.settled
        step.handedOut = effects.observers.all.map { numbers[ObjectIdentifier($0)] ?? -1 }
        step.holdsDelivery = effects.holdsDelivery
        step.runsLazyBody = effects.runsLazyBody
        if effects.runsLazyBody {
            // The state actor takes the body from the store and runs it; it must be there.
            step.runsLazyBody = hooks.take(as: LazyBody<Int>.self) != nil
        }
        step.reportsAbandonment = effects.reportsAbandonment
        step.reportsDone = effects.reportDone
        step.reattaches = effects.reattach
        if let cancellation = effects.cancellation {
            step.cancellation = MachineModel.Step.Cancellation(
                children: Set(cancellation.children.map { childNumbers[ObjectIdentifier($0)] ?? -1 }),
                handler: cancellation.handler != nil,
                parentLostInterest: cancellation.parentLostInterest,
                adopteeLostInterest: cancellation.adopteeLostInterest != nil)
        }
        step.subscribes = effects.adoption?.subscribeTo != nil
        step.tellsUnwanted = effects.adoption?.unwanted != nil
        return step
    }
}
