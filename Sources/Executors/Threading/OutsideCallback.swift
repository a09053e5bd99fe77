import Synchronization

/// A test runtime that knows of callbacks handed to work outside it (an SDK's completion
/// handler): it does not let its clock jump past a deadline while one may still be called, and it
/// runs what each delivers as a job of its own, in its order.
package protocol OutsideWorkTracker: AnyObject, Sendable {
    /// `callback` was made on the runtime's thread and handed out.
    func outsideCallbackStarted(_ callback: OutsideCallback)
    /// `callback` was called (`delivery` is what it does, to run as a job), or released without
    /// being called (`delivery` is `nil`). `first` says whether this is its first call or release.
    func outsideCallbackEnded(_ callback: OutsideCallback, first: Bool, delivery: (@Sendable () -> Void)?)
    /// A promise made under the runtime is being settled by its resolver from code the runtime
    /// does not drive (debug builds tell): work it could not see, which its clock may have
    /// overtaken. `promise` names it.
    func settledFromOutside(_ promise: String)
    /// A promise body (`Promise { resolver in … }`) starts on the runtime's thread: what the
    /// runtime has been handed so far, for ``bodyEnded(_:)``.
    func bodyBegan() -> BodyMark
    /// The body that began at `mark` returned. The runtime decides, by what the body started in
    /// between, where the completion handlers the body made will be answered; returns whether the
    /// body's resolver, if its promise is still pending, was handed to work outside the runtime.
    func bodyEnded(_ mark: BodyMark) -> Bool
}

/// How much work a test runtime had been handed when a promise body began: jobs and timers, and
/// completion handlers made.
package struct BodyMark: Sendable {
    package let work: UInt64
    package let callbacks: UInt64

    package init(work: UInt64, callbacks: UInt64) {
        self.work = work
        self.callbacks = callbacks
    }
}

/// How many parties want to see the promises that bodies make (`Promise { resolver in … }`):
/// the live test runtimes, and, in a release build, the failure-trace switch while it is on (the
/// promise module's, which then keeps each such promise's site). That path, which users take
/// outside tests too, reads this first, and so pays one relaxed load, not a thread-local look-up
/// or a second load, when nobody watches.
@usableFromInline
package let creationWatchers = Atomic<Int>(0)

/// Whether anybody watches promises being made: one load, inlined where it is asked.
@inlinable @inline(__always)
package var creationIsWatched: Bool { creationWatchers.load(ordering: .relaxed) > 0 }

/// The test runtime driving the calling code, if one does and it tracks outside work.
package func currentOutsideWorkTracker() -> (any OutsideWorkTracker)? {
    guard creationIsWatched else { return nil }
    return ThreadState.withCurrent { $0.activeInterceptor } as? any OutsideWorkTracker
}

/// Whether `tracker` is the runtime driving the calling code.
func drives(_ tracker: any OutsideWorkTracker) -> Bool {
    ThreadState.withCurrent { $0.activeInterceptor } === tracker
}

/// The test runtime a promise was made under, kept weakly: debug builds record it in every promise
/// made while a runtime drives, so that a settlement from outside that runtime can be told apart.
@usableFromInline
package final class RuntimeLink: Sendable {
    package weak let tracker: (any OutsideWorkTracker)?

    private init(_ tracker: any OutsideWorkTracker) { self.tracker = tracker }

    /// The link to the runtime driving the calling code, if one does.
    @usableFromInline
    package static func current() -> RuntimeLink? {
        currentOutsideWorkTracker().map(RuntimeLink.init)
    }

    /// Whether the calling code runs under this runtime.
    package var isDriving: Bool {
        guard let tracker else { return true }
        return drives(tracker)
    }
}

/// A callback made on a test runtime's thread and handed to work outside the runtime: the
/// completion adapters of `Resolver` make one when a runtime drives their thread, and nothing
/// otherwise (one relaxed load when no runtime exists).
///
/// While it has not been called, the runtime waits for it (in real time, up to its limit) instead
/// of jumping its clock; what it delivers runs as one of the runtime's jobs, so that the handlers
/// it releases run in the runtime's order and on its clock.
package final class OutsideCallback: Sendable {
    /// What the callback is, for the runtime's messages: "the completion handler of the promise
    /// made at Loader.swift:12".
    package let label: String
    private let state: LockedState<Tracking>

    private struct Tracking: Sendable {
        weak var tracker: (any OutsideWorkTracker)?
        var called = false
    }

    private init(label: String, tracker: any OutsideWorkTracker) {
        self.label = label
        state = LockedState(Tracking(tracker: tracker))
    }

    /// A tracked callback if a runtime that tracks them drives this thread; `nil` otherwise.
    package static func started(_ label: @autoclosure () -> String) -> OutsideCallback? {
        guard let tracker = currentOutsideWorkTracker() else { return nil }
        let callback = OutsideCallback(label: label(), tracker: tracker)
        tracker.outsideCallbackStarted(callback)
        return callback
    }

    /// Runs `delivery` as a job of the runtime that tracks this callback — or at once, when that
    /// runtime drives the calling code (a callback called back synchronously) or is gone.
    package func deliver(_ delivery: @escaping @Sendable () -> Void) {
        let (tracker, first) = state.withLock { state in
            defer { state.called = true }
            return (state.tracker, !state.called)
        }
        guard let tracker else { return delivery() }
        if drives(tracker) {
            tracker.outsideCallbackEnded(self, first: first, delivery: nil)
            return delivery()
        }
        tracker.outsideCallbackEnded(self, first: first, delivery: delivery)
    }

    deinit {
        let tracker = state.withLock { $0.called ? nil : $0.tracker }
        tracker?.outsideCallbackEnded(self, first: true, delivery: nil)
    }
}
