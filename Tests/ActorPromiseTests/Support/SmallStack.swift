import Foundation

/// Runs `body` on a new thread with a stack of `bytes` and returns once it has returned: a
/// recursion that grows with a chain's length crashes there long before it would on a thread of
/// the default size.
func onThread(stackSize bytes: Int, _ body: @escaping @Sendable () -> Void) async {
    await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in
        let thread = Thread {
            body()
            done.resume()
        }
        thread.stackSize = bytes
        thread.start()
    }
}
