/// A reference model of one promise's state, written from the Semantics rules alone, for
/// `StateMachineSequenceTests`: what a promise must do when the events below reach it, in any
/// order. It knows nothing of the library's types; the test maps both onto ``MachineStep``.
struct MachineModel {
    /// One event that can reach a promise's state.
    enum Event: Hashable, CustomStringConvertible {
        /// The resolver fulfils (with the next value: 1, 2, …), rejects, or is released.
        case fulfil, reject, abandon
        /// The resolver registers a cancellation handler (R6).
        case onCancel
        /// The resolver makes the promise follow a pending promise (adoption), or follow a
        /// promise that follows it (a cycle, R13).
        case follow, followCycle
        /// The promise followed settles (with 100) and delivers to this one, which observes it
        /// inline — also after a cancel settled this one first.
        case adopteeSettled
        /// A party registers: an observer on `.inline`, an observer on another context, a
        /// derived promise (an observer on another context, a child and a dependent), or a
        /// dependent with no observer.
        case observeInline, observeOrdered, derive, addDependent
        /// `cancel()` reaches the promise.
        case cancel
        /// The delivery under way ends (R2).
        case endDelivery
        /// Child `n` reports that it and its descendants are settled; or registers again, after
        /// it had reported that and gained a child. A report can overtake the registration before
        /// it (the child's new child settled on another thread): the registration then does
        /// nothing; and a registration can overtake the report before it: that report then does
        /// nothing.
        case childDone(Int), reattach(Int)
        /// A dependent was cancelled (R7).
        case dependentCancelled

        var description: String {
            switch self {
            case .fulfil: "fulfil"
            case .reject: "reject"
            case .abandon: "abandon"
            case .onCancel: "onCancel"
            case .follow: "follow"
            case .followCycle: "followCycle"
            case .adopteeSettled: "adopteeSettled"
            case .observeInline: "observeInline"
            case .observeOrdered: "observeOrdered"
            case .derive: "derive"
            case .addDependent: "addDependent"
            case .cancel: "cancel"
            case .endDelivery: "endDelivery"
            case .childDone(let n): "childDone(\(n))"
            case .reattach(let n): "reattach(\(n))"
            case .dependentCancelled: "dependentCancelled"
            }
        }
    }

    /// How the promise settled.
    enum Settlement: Equatable {
        case value(Int), rejected, abandoned, cancelled, cycle
    }

    /// The promise a sequence starts from.
    struct Start: CustomStringConvertible {
        /// Whether the promise cancels itself when every dependent was cancelled (R7).
        var tracksInterest: Bool
        /// Whether the promise has a lazy body, which makes its resolver (R10).
        var isLazy: Bool
        /// Whether the promise it derives from had settled before a cancel reaches it (R1).
        var cancelAfterSource: Bool

        var description: String {
            "tracksInterest: \(tracksInterest), lazy: \(isLazy), cancelAfterSource: \(cancelAfterSource)"
        }
    }

    /// What one event must cause, beyond the state it leaves.
    struct Step: Equatable {
        struct Cancellation: Equatable {
            var children: Set<Int> = []
            var handler = false
            var parentLostInterest = false
            var adopteeLostInterest = false
        }

        var settled = false
        /// The observers handed their outcome now, by number, in order.
        var handedOut: [Int] = []
        var holdsDelivery = false
        var runsLazyBody = false
        var reportsAbandonment = false
        var reportsDone = false
        var reattaches = false
        var cancelsItself = false
        var cancellation: Cancellation?
        var subscribes = false
        var tellsUnwanted = false
    }

    /// The most observers (of any kind) and children a sequence registers.
    static let maxRegistrations = 3
    static let maxChildren = 2

    let start: Start
    var outcome: Settlement?
    var isCancelled = false
    var cancelledWhilePending = false
    var cancelledAfterSource = false
    var lazyBodyWaits: Bool
    var lazyBodyRuns = 0
    var handlerWaits = false
    var handlerRegistered = false
    var handlerRuns = 0
    /// Observers by number, in registration order, and whether each runs inline.
    var registered: [(number: Int, inline: Bool)] = []
    var waiting: [Int] = []
    var handedOut: [Int] = []
    var isDelivering = false
    var hasOrderedObserver = false
    var registrations = 0
    var dependents = 0
    var cancelledDependentEvents = 0
    var countedCancelledDependents = 0
    var children: [Int] = []
    var doneChildren: [Int] = []
    /// Done children whose next report overtook their registration.
    var overtaken: [Int] = []
    /// Children whose registration overtook the "done" they had sent before it.
    var reattachedEarly: [Int] = []
    var childCount = 0
    var isDone = false
    var isFollowing = false
    var followUsed = false
    /// Registered with the promise it follows, which has not delivered yet.
    var awaitsAdoptee = false
    /// Observes inline, as a follower does from its follow on (published in the status).
    var observesInline = false
    var resolverGone = false
    var fulfilments = 0

    init(_ start: Start) {
        self.start = start
        self.lazyBodyWaits = start.isLazy
    }

    /// The events that can happen next, in a real program, from this state.
    var enabled: [Event] {
        var events: [Event] = []
        // A lazy promise's resolver exists once its body has run; a released resolver does nothing.
        if !resolverGone && (!start.isLazy || lazyBodyRuns > 0) {
            events += [.fulfil, .reject, .abandon, .onCancel]
            if !followUsed { events += [.follow, .followCycle] }
        }
        if registrations < Self.maxRegistrations {
            events += [.observeInline, .observeOrdered, .addDependent]
            if childCount < Self.maxChildren { events.append(.derive) }
        }
        events.append(.cancel)
        if awaitsAdoptee { events.append(.adopteeSettled) }
        if isDelivering { events.append(.endDelivery) }
        events += children.map { .childDone($0) }
        events += doneChildren.filter { !overtaken.contains($0) }.map { .childDone($0) }
        events += doneChildren.map { .reattach($0) }
        events += children.filter { !reattachedEarly.contains($0) }.map { .reattach($0) }
        if cancelledDependentEvents < dependents { events.append(.dependentCancelled) }
        return events
    }

    /// Applies `event` and returns what it must cause.
    mutating func apply(_ event: Event) -> Step {
        var step = Step()
        switch event {
        case .fulfil:
            fulfilments += 1
            if outcome == nil { settle(.value(fulfilments), &step) }
        case .reject:
            if outcome == nil { settle(.rejected, &step) }
        case .abandon:
            resolverGone = true
            // R8: only a promise that nothing can settle any more is abandoned.
            if outcome == nil && !isFollowing {
                settle(.abandoned, &step)
                step.reportsAbandonment = true
            }
        case .onCancel:
            handlerRegistered = true
            if outcome == nil {
                handlerWaits = true  // a later handler replaces one that has not run
            } else if cancelledWhilePending {
                handlerRuns += 1
                step.cancellation = Step.Cancellation(handler: true)
            }
        case .follow:
            followUsed = true
            if outcome == nil {
                isFollowing = true
                awaitsAdoptee = true
                observesInline = true
                step.subscribes = true
            } else if cancelledWhilePending {
                step.tellsUnwanted = true  // B7: the returned promise loses this dependent
            }
        case .followCycle:
            followUsed = true
            if outcome == nil { settle(.cycle, &step) } else if cancelledWhilePending { step.tellsUnwanted = true }
        case .adopteeSettled:
            awaitsAdoptee = false
            // The followed promise's outcome, unless a cancel settled this one first (R1).
            if outcome == nil && isFollowing { settle(.value(100), &step) }
        case .observeInline, .observeOrdered, .derive:
            register(event, &step)
        case .addDependent:
            registrations += 1
            dependents += 1
        case .cancel:
            cancel(&step)
        case .endDelivery:
            if waiting.isEmpty {
                isDelivering = false
            } else {
                step.handedOut = waiting
                handedOut += waiting
                waiting = []
                step.holdsDelivery = true
            }
        case .childDone(let child) where !children.contains(child):
            overtaken.append(child)
        case .reattach(let child) where children.contains(child):
            reattachedEarly.append(child)  // its "done" is still on the way: the child stays
        case .childDone(let child) where reattachedEarly.contains(child):
            reattachedEarly.removeAll { $0 == child }
        case .reattach(let child) where overtaken.contains(child):
            overtaken.removeAll { $0 == child }
        case .childDone(let child):
            children.removeAll { $0 == child }
            doneChildren.append(child)
            if outcome != nil && children.isEmpty && !isDone {
                isDone = true
                step.reportsDone = true
            }
        case .reattach(let child):
            doneChildren.removeAll { $0 == child }
            children.append(child)
            if isDone {
                isDone = false
                step.reattaches = true
            }
        case .dependentCancelled:
            cancelledDependentEvents += 1
            // R7: counted while it can matter; the last interested dependent cancels the promise.
            guard start.tracksInterest, outcome == nil else { break }
            countedCancelledDependents += 1
            if countedCancelledDependents >= dependents {
                step.cancelsItself = true
                cancel(&step)
            }
        }
        return step
    }

    private mutating func settle(_ settlement: Settlement, _ step: inout Step) {
        outcome = settlement
        step.settled = true
        step.handedOut = waiting
        handedOut += waiting
        waiting = []
        isDelivering = hasOrderedObserver
        step.holdsDelivery = hasOrderedObserver
        hasOrderedObserver = false
        lazyBodyWaits = false
        handlerWaits = false
        isFollowing = false
        if children.isEmpty && !isDone {
            isDone = true
            step.reportsDone = true
        }
    }

    private mutating func register(_ event: Event, _ step: inout Step) {
        registrations += 1
        dependents += 1
        let number = registered.count
        let inline = event == .observeInline
        registered.append((number, inline))
        if event == .derive {
            children.append(childCount)
            childCount += 1
            if isDone {
                isDone = false
                step.reattaches = true
            }
        }
        if outcome != nil {
            if inline {
                step.handedOut = [number]
                handedOut.append(number)
            } else if isDelivering {
                waiting.append(number)  // behind the delivery under way (R2)
            } else {
                isDelivering = true
                step.holdsDelivery = true
                step.handedOut = [number]
                handedOut.append(number)
            }
        } else {
            if !inline { hasOrderedObserver = true }
            waiting.append(number)
            if lazyBodyWaits {
                lazyBodyWaits = false
                lazyBodyRuns += 1
                step.runsLazyBody = true
            }
        }
    }

    private mutating func cancel(_ step: inout Step) {
        guard !isCancelled else { return }  // R5: a second cancel does nothing
        isCancelled = true
        var cancellation = Step.Cancellation(children: Set(children))
        if outcome == nil {
            cancellation.handler = handlerWaits
            if handlerWaits { handlerRuns += 1 }
            cancellation.parentLostInterest = true
            cancellation.adopteeLostInterest = isFollowing
            settle(.cancelled, &step)
            cancelledWhilePending = true
            cancelledAfterSource = start.cancelAfterSource
        }
        step.cancellation = cancellation
    }
}
