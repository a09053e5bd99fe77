/// What can be done to the value half of a promise's state. Operations that arrive while another
/// thread holds the state actor's gate are parked and applied by that thread.
@usableFromInline
enum PromiseOp<Value: Sendable>: Sendable {
    case settle(Outcome<Value>)
    /// The resolver is gone (R8): reject with this error, unless the promise is settled or follows
    /// another promise, and report it.
    case abandon(any Error)
    /// Register an observer that counts as a dependent (an awaiter, an adopting promise, …).
    case observe(any OutcomeObserver)
    /// Register a derived promise: it is an observer, a child and a dependent at once.
    case derive(any PromiseNode)
    /// Add a dependent with no observer.
    case addDependent
    /// Cancel (R5). `afterSource`: the promise this one derives from had settled before the
    /// cancel reached this one (see ``PromiseStatus/cancelledAfterSource``).
    case cancel(reason: (any Error)?, afterSource: Bool = false)
    case onCancel(@Sendable () -> Void)
    /// Follow `source` (adoption); `follower` is the identity of the promise that follows.
    case follow(PromiseCore<Value>, follower: ObjectIdentifier)
    /// The promise this one follows has settled: take its outcome, unless a cancel came first.
    case adopteeSettled
    /// A delivery of observers has run (R2); observers registered meanwhile are delivered now.
    case endDelivery
}
