import ActorPromise

/// W1 and W2 with one task-local key registered for propagation and a value bound where the
/// handlers are registered: what R15 costs per handler. The plain W1 and W2 rows are the same
/// workloads with no key registered.
enum TaskLocalWorkloads {
    @TaskLocal static var requestID = 0

    static func chain(iterations: Int) {
        PromiseTaskLocals.propagate($requestID)
        $requestID.withValue(42) { ActorPromiseWorkloads.chain(iterations: iterations, links: 100, on: .global) }
    }

    static func fanOut(iterations: Int) {
        PromiseTaskLocals.propagate($requestID)
        $requestID.withValue(42) { ActorPromiseWorkloads.fanOut(iterations: iterations, handlers: 1_000) }
    }
}
