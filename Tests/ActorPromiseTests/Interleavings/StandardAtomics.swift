#if ACTORPROMISE_INTERLEAVINGS
import Synchronization

/// The standard `Atomic` for the tests' own flags (the executors' module exports the memory
/// model's `Atomic` in the checker's build).
typealias Atomic<Value: AtomicRepresentable> = Synchronization.Atomic<Value>
#endif
