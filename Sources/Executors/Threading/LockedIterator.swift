/// An iterator that one thread at a time advances: the `next()` of a sequence handed over with
/// `sending`, behind a lock, so that a batch can pull its next element from whichever thread
/// freed a slot.
///
/// Safety (`@unchecked Sendable`): `base` was handed over with `sending` (nothing else refers to
/// its state) and is touched only in ``next(_:)``, with `lock` held, so no two threads touch it at
/// once; what leaves it is a `Sendable` element. The runtime's exclusivity check is off because
/// the lock already makes every access exclusive.
///
/// The base's type is erased (one dynamic call per element), so that code holding the iterator
/// is generic over the element only.
package final class LockedIterator<Element: Sendable>: @unchecked Sendable {
    private let lock = ConditionLock()
    @exclusivity(unchecked) private var base: any IteratorProtocol<Element>
    @exclusivity(unchecked) private var isExhausted = false

    package init(_ base: sending some IteratorProtocol<Element>) {
        self.base = base
    }

    /// The next element, or `nil` once the sequence has ended (and from then on, without calling
    /// the base again). `then` runs with the lock still held, with the element, so that elements
    /// are numbered in the order they were pulled.
    package func next<Result>(_ then: (Element) -> Result) -> Result? {
        lock.lock()
        defer { lock.unlock() }
        guard !isExhausted else { return nil }
        guard let element = base.next() else {
            isExhausted = true
            return nil
        }
        return then(element)
    }
}
