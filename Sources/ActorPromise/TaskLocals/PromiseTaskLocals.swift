import Synchronization

/// Task-local values that travel with promise handlers (R15).
///
/// A handler usually runs far from where it was written: on a pool thread, on a queue, on the
/// main actor, or inline on whichever thread settled its promise. None of those carries the
/// registering code's task-local values, so a request ID or a tracing context bound around a
/// `then` would be lost in its handler. Register the key once, and it is not:
///
/// ```swift
/// enum Request {
///     @TaskLocal static var id: String?
/// }
///
/// PromiseTaskLocals.propagate(Request.$id)     // once, at start-up
///
/// Request.$id.withValue("req-42") {
///     fetchUser()
///         .then { user in log("loaded \(user)") }               // sees "req-42", on the pool
///         .then(on: .main) { _ in log("shown") }               // sees "req-42", on the main actor
/// }
/// ```
///
/// For every registered key:
/// - A handler — of `then`, `map`, `flatMap`, `catch`, `recover`, `ensure`, `ensureThen`, `tap`,
///   `whenComplete`, `validate`, their main-actor and actor-isolated forms, on any context — runs
///   with the value that was bound where the handler was registered, the key's default if none
///   was. The values bound on the thread that settles the promise never reach it.
/// - A lazy body, each attempt of a retried body, each transform of `map(maxConcurrency:)`, a
///   batch-progress handler and a resolver's `onCancel` handler run with the values bound where
///   they were handed to the library.
/// - Nothing flows back: values a handler binds end with it.
/// - An async body (`Promise { try await … }`) and `await promise.value` need nothing from this
///   type: they run in a task, which carries its task-local values itself.
///
/// Registration is process-wide, thread-safe and idempotent, and may happen at any time; it
/// applies to handlers registered after it. A key cannot be unregistered. With no key registered
/// a handler pays one atomic load; with keys registered it captures their values when it is
/// registered and binds them around its run (the *Performance* article has the figures).
///
/// A tracing library's context is registered the same way: swift-distributed-tracing's
/// `ServiceContext` is a `TaskLocal` too, so `PromiseTaskLocals.propagate(ServiceContext.$current)`
/// carries it through promise chains.
public enum PromiseTaskLocals {
    /// Makes `key`'s value travel with every handler registered from now on.
    ///
    /// Calling it again with the same key does nothing.
    ///
    /// - Parameter key: The task-local key, written with a `$`: `Request.$id`.
    public static func propagate<Value: Sendable>(_ key: TaskLocal<Value>) {
        add(PropagatedKey(key: key))
    }

    /// Whether `key` is registered.
    ///
    /// - Parameter key: The task-local key.
    /// - Returns: `true` once ``propagate(_:)`` was called with it.
    public static func isPropagated<Value: Sendable>(_ key: TaskLocal<Value>) -> Bool {
        current?.keys.contains { $0.id == ObjectIdentifier(key) } ?? false
    }

    /// The values of the registered keys, as bound on the calling thread or task; `nil` when no
    /// key is registered, which costs one atomic load.
    @inlinable
    static func capture() -> CapturedTaskLocals? {
        publishedTaskLocalKeys.withObject { $0.hasKeys ? capture($0) : nil } ?? nil
    }

    /// What a promise made at `site` by an operator carries from its registration: the values of
    /// the registered keys, and, in a release build with failure traces on, the side object that
    /// keeps its site (R16) — all behind the one atomic load that finds nothing to carry.
    @inlinable
    static func capture(for site: PromiseSite) -> CapturedTaskLocals? {
        publishedTaskLocalKeys.withObject { keys in
            keys.keepsSites ? capture(keys, keeping: site) : capture(keys)
        }
    }

    /// A capture of the values of `keys` for one promise, which also brings the side object that
    /// keeps `site` for traces (R16).
    @usableFromInline
    static func capture(_ keys: TaskLocalKeyList, keeping site: PromiseSite) -> CapturedTaskLocals {
        CapturedTaskLocals(keys: ObjectIdentifier(keys), values: keys.keys.map { $0.capture() }, keepingForTraces: site)
    }

    /// The values of `keys` here: the capture this thread made last if every key still holds the
    /// value it captured, a new one otherwise.
    @usableFromInline
    static func capture(_ keys: TaskLocalKeyList) -> CapturedTaskLocals {
        let id = ObjectIdentifier(keys)
        return ThreadState.withCurrent { thread in
            if let last = thread.lastCapturedTaskLocals(as: CapturedTaskLocals.self), last.isCurrent(for: id) {
                return last
            }
            let fresh = CapturedTaskLocals(keys: id, values: keys.keys.map { $0.capture() })
            thread.setLastCapturedTaskLocals(fresh)
            return fresh
        }
    }

    /// Serializes the writers of the key list. A plain lock: a `LockedState` of `Void` made
    /// ThreadSanitizer report its zero-sized state's in-place access, under the lock, as racing
    /// with the lock's own field read by the next writer before it locks.
    private static let writer = ConditionLock()

    private static func add(_ key: any TaskLocalKey) {
        writer.lock()
        defer { writer.unlock() }
        let keys = current?.keys ?? []
        guard !keys.contains(where: { $0.id == key.id }) else { return }
        publishedTaskLocalKeys.publish(TaskLocalKeyList(keys: keys + [key], keepsSites: current?.keepsSites ?? false))
    }

    /// Makes operators keep the sites of the promises they make, for failure traces in release
    /// builds (R16), or stop. Publishes a list, which stays allocated: the switch is for a staging
    /// build or a debugging session, not for flipping in a loop.
    static func keepSites(_ keep: Bool) {
        writer.lock()
        defer { writer.unlock() }
        guard keep != (current?.keepsSites ?? false) else { return }
        publishedTaskLocalKeys.publish(TaskLocalKeyList(keys: current?.keys ?? [], keepsSites: keep))
        // Bodies' promises too (`Promise { resolver in … }`, which operators do not make).
        if keep {
            creationWatchers.wrappingAdd(1, ordering: .relaxed)
        } else {
            creationWatchers.wrappingSubtract(1, ordering: .relaxed)
        }
    }

    private static var current: TaskLocalKeyList? {
        publishedTaskLocalKeys.withObject { $0 }
    }
}

/// The registered keys, published for readers that take no lock: registration is rare (once per
/// key), reading happens at every handler registration. Empty until a key is registered or sites
/// are kept for traces. Every list published stays allocated (see ``ImmortalCell``): a list is
/// replaced only when a new key is registered or the trace switch of a release build is flipped,
/// so the lists kept number a handful in a process.
@usableFromInline
let publishedTaskLocalKeys = ImmortalCell<TaskLocalKeyList>()

/// One published list of keys, and whether operators keep their promises' sites for failure
/// traces (release builds with traces on, R16); immutable.
@usableFromInline
final class TaskLocalKeyList: Sendable {
    let keys: [any TaskLocalKey]
    @usableFromInline let keepsSites: Bool
    /// Whether any key is registered.
    @usableFromInline var hasKeys: Bool { !keys.isEmpty }

    init(keys: [any TaskLocalKey], keepsSites: Bool) {
        self.keys = keys
        self.keepsSites = keepsSites
    }
}

/// A registered key, its value type erased.
protocol TaskLocalKey: Sendable {
    var id: ObjectIdentifier { get }
    /// The key's value as bound here (its default if nothing is bound).
    func capture() -> any CapturedTaskLocal
}

private struct PropagatedKey<Value: Sendable>: TaskLocalKey {
    let key: TaskLocal<Value>

    var id: ObjectIdentifier { ObjectIdentifier(key) }

    func capture() -> any CapturedTaskLocal { CapturedValue(key: key, value: key.get()) }
}
