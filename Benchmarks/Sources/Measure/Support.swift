import Synchronization

/// A countdown shared by handlers.
final class Counter: Sendable {
    private let value: Atomic<Int>
    init(_ value: Int) { self.value = Atomic(value) }
    func decrement() -> Int { value.subtract(1, ordering: .acquiringAndReleasing).newValue }
}
