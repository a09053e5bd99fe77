import Foundation

/// Names a library context for error messages: the object ``ThreadState/runningContext`` gives.
package func describeRunningContext(_ object: AnyObject) -> String {
    switch object {
    case let queue as SerialQueue: return "an item of SerialQueue '\(queue.label)'"
    case let queue as ConcurrentQueue: return "an item of ConcurrentQueue '\(queue.label)'"
    case let core as OperationQueueCore: return "an operation of OperationExecutor '\(core.label)'"
    case let core as RunLoopCore: return "an item of RunLoopThread '\(core.name)'"
    case is MainContext: return "a handler on the main context"
    case let queue as DispatchQueue: return "a block of DispatchQueue '\(queue.label)'"
    case let queue as OperationQueue: return "an operation of OperationQueue '\(queue.name ?? "unnamed")'"
    case is RunLoopContext: return "a handler on a RunLoop"
    default: return "an item of \(type(of: object))"
    }
}
