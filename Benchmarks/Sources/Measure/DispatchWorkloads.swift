import Dispatch

/// References built on the platform's own primitives.
enum DispatchWorkloads {
    /// W7 reference: a `DispatchQueue.async` hop to a serial queue and a signal back.
    static func serialHop(iterations: Int) {
        let queue = DispatchQueue(label: "w7")
        let done = DispatchSemaphore(value: 0)
        for _ in 0..<iterations {
            queue.async { done.signal() }
            done.wait()
        }
    }
}
