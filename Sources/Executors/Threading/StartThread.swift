/// Starts a detached thread running `body`.
///
/// `body` runs with a task-local value of the library's own bound for the thread's whole life.
/// Code on a thread without a task keeps its task-local values in a per-thread store, which the
/// Swift runtime creates at the first binding and frees again when the last one ends: a handler
/// that binds its captured values (R15) would pay for that store each time it runs. With this
/// value bound the store lives as long as the thread, so a binding costs one entry.
package func startThread(named name: String, _ body: @escaping @Sendable () -> Void) {
    final class Box: Sendable {
        let body: @Sendable () -> Void
        let name: String
        init(_ body: @escaping @Sendable () -> Void, name: String) { self.body = body; self.name = name }
    }
    let box = Unmanaged.passRetained(Box(body, name: name)).toOpaque()
    var attributes = pthread_attr_t()
    pthread_attr_init(&attributes)
    pthread_attr_setdetachstate(&attributes, Int32(PTHREAD_CREATE_DETACHED))
    pthread_attr_setstacksize(&attributes, 8 << 20)
    #if canImport(Darwin)
    var thread: pthread_t? = nil
    #else
    var thread = pthread_t()
    #endif
    let status = pthread_create(&thread, &attributes, { raw in
        #if canImport(Darwin)
        let box = Unmanaged<Box>.fromOpaque(raw).takeRetainedValue()
        pthread_setname_np(String(box.name.prefix(63)))
        #else
        let box = Unmanaged<Box>.fromOpaque(raw!).takeRetainedValue()
        nameThisThread(box.name)
        #endif
        ThreadAnchor.$bound.withValue(true) { box.body() }
        return nil
    }, box)
    pthread_attr_destroy(&attributes)
    precondition(status == 0, "pthread_create failed: \(status)")
}

/// The task-local value that keeps a library thread's task-local store alive (see `startThread`).
enum ThreadAnchor {
    @TaskLocal static var bound = false
}

#if !canImport(Darwin)
/// Names the calling thread for `top`, debuggers and /proc: Linux keeps 15 bytes of it, so a longer
/// name of the library's own (`ActorPromise.global.3`) drops its prefix (`global.3`). Glibc's
/// `pthread_setname_np` is not visible to Swift, so the name is written where the kernel keeps it.
private func nameThisThread(_ name: String) {
    let file = open("/proc/thread-self/comm", O_WRONLY)
    guard file >= 0 else { return }
    let prefix = "ActorPromise."
    let short = name.utf8.count > 15 && name.hasPrefix(prefix) ? name.dropFirst(prefix.count) : Substring(name)
    let bytes = Array(short.utf8.prefix(15))
    _ = bytes.withUnsafeBytes { write(file, $0.baseAddress, $0.count) }
    close(file)
}
#endif
