/// What can be done to the value half of a promise's state. Operations that arrive while another
/// thread holds the state actor's gate are parked and applied by that thread.
@usableFromInline
enum PromiseOp<Value: Sendable>: Sendable {
    case settle(Outcome<Value>)
    case register(observer: Observer<Value>?, child: (any PromiseNode)?, dependent: Bool)
    case cancel(reason: (any Error)?)
    case onCancel(@Sendable () -> Void)
    /// Follow `source` (adoption); `follower` is the identity of the promise that follows.
    case follow(PromiseCore<Value>, follower: ObjectIdentifier)
    /// A delivery of observers has run (R2); observers registered meanwhile are delivered now.
    case endDelivery
}
