import ActorPromiseExecutors

/// How long a wait for work from outside the runtime has lasted, in seconds of real time, counting
/// at most ``maxStep`` between two looks at the clock.
///
/// The runtime looks at least that often while it waits, so an ordinary wait counts its real time;
/// a pause of the whole process — a virtual machine suspended by its host, a debugger stop — counts
/// at most one step, however long it was. The work the runtime waits for was paused with it, and a
/// limit that a pause used up would give up on that work the moment the process resumed, before
/// the work had its turn.
package struct WaitedTime {
    /// The most one look counts, and so the longest the runtime sleeps between looks.
    package static let maxStep = 1.0

    private var counted = 0.0
    private var lastLook: Double
    private let clock: () -> Double

    /// Starts counting now.
    ///
    /// - Parameter clock: The monotonic clock, in seconds; tests pass their own.
    package init(clock: @escaping () -> Double = monotonicSeconds) {
        self.clock = clock
        lastLook = clock()
    }

    /// Looks at the clock; returns the seconds counted since the wait began.
    package mutating func look() -> Double {
        let now = clock()
        counted += min(max(0, now - lastLook), Self.maxStep)
        lastLook = now
        return counted
    }
}
