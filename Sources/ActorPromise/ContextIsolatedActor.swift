import ActorPromiseExecutors

/// An actor that says which library context its executor runs on, so that handlers isolated to
/// it (`then(isolatedTo:)`) run there directly — in registration order, with no `Task` per
/// handler (R9).
///
/// ```swift
/// actor Inventory: ContextIsolatedActor {
///     let queue = SerialQueue(label: "inventory")
///     nonisolated var unownedExecutor: UnownedSerialExecutor { queue.asUnownedSerialExecutor() }
///     nonisolated var executionContext: any ExecutionContext { queue }
///     var items: [Item] = []
/// }
/// ```
///
/// `executionContext` must be the context the actor's executor runs on (the `SerialQueue` or
/// `RunLoopThread` that `unownedExecutor` comes from). The handler enters the actor with
/// `assumeIsolated`, which Swift checks: naming another context makes that check fail.
public protocol ContextIsolatedActor: Actor {
    /// The context the actor's executor runs on.
    nonisolated var executionContext: any ExecutionContext { get }
}
