#if ACTORPROMISE_INTERLEAVINGS
import Synchronization

/// `Atomic` in this module's checking build: the memory model's, whose loads may read any store
/// the orderings allow (see `MemoryModel` in the executors' module).
@usableFromInline
typealias Atomic<Value: AtomicRepresentable> = ModelAtomic<Value>
#endif
