import Dispatch
import Foundation

/// Runs handlers on the main thread, through the main dispatch queue (E4).
///
/// That queue is what `MainActor` runs on, so `then(on: .main)` handlers interleave with
/// main-actor code in submission order. Something must service the main queue: in an app or an
/// `async` `main` it already is; a command-line program that blocks its main thread instead calls
/// ``run(until:timeout:)`` to drive it.
public final class MainContext: ExecutionContext, Sendable {
    /// The main context.
    public static let shared = MainContext()

    private init() {}

    /// Queues `item` on the main queue.
    public func submit(_ item: WorkItem) {
        DispatchQueue.main.async { ThreadState.current.running(self) { item.run() } }
    }

    /// Whether the calling code runs a handler of this context right now.
    public var isCurrent: Bool { ThreadState.current.isRunning(self) }

    /// Drives the main queue from the main thread until `condition` returns `true`.
    ///
    /// - Parameters:
    ///   - condition: Checked after each turn of the loop.
    ///   - timeout: Gives up after this many seconds (returns `false`).
    /// - Returns: Whether `condition` became true.
    /// - Precondition: called on the main thread.
    @discardableResult
    public func run(until condition: () -> Bool, timeout: Double = .infinity) -> Bool {
        let deadline = Date(timeIntervalSinceNow: min(timeout, 1e9))
        while !condition() {
            if Date() >= deadline { return false }
            _ = RunLoop.main.run(mode: .default, before: min(deadline, Date(timeIntervalSinceNow: 0.05)))
        }
        return true
    }
}

extension ExecutionContext where Self == MainContext {
    /// The main thread, through the main dispatch queue. See ``MainContext``.
    public static var main: MainContext { MainContext.shared }
}
