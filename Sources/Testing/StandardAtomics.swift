#if ACTORPROMISE_INTERLEAVINGS
import Synchronization

/// The standard `Atomic`: the test runtime's own flags are no part of the checked protocols (the
/// executors' module exports the memory model's `Atomic` in the checker's build).
typealias Atomic<Value: AtomicRepresentable> = Synchronization.Atomic<Value>
#endif
