import Executors

/// A lock-protected value for tests. pthread-based so ThreadSanitizer models it exactly.
final class Locked<Value>: @unchecked Sendable {
    // Safety: `value` is only touched with `lock` held.
    private let lock = ConditionLock()
    private var value: Value

    init(_ value: Value) { self.value = value }

    func withLock<R>(_ body: (inout Value) throws -> R) rethrows -> R {
        lock.lock()
        defer { lock.unlock() }
        return try body(&value)
    }

    var current: Value { withLock { $0 } }
}

extension Locked where Value == [Int] {
    func append(_ element: Int) { withLock { $0.append(element) } }
}

extension Locked where Value == Int {
    @discardableResult
    func increment() -> Int { withLock { $0 += 1; return $0 } }
}

struct TestError: Error, Equatable {
    var id = 0
}

/// An identity for the calling thread, valid for comparisons made without an `await` between.
func currentThreadID() -> UInt {
    UInt(bitPattern: Int(bitPattern: UnsafeRawPointer(Unmanaged.passUnretained(ThreadState.current).toOpaque())))
}
