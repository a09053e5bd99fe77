import Synchronization
import ActorPromiseExecutors

/// The values of ``AwaitObserver``'s `phase` (see there).
@usableFromInline
enum AwaitPhase: UInt8, AtomicRepresentable {
    case registered, armed, cancelledEarly, resumed, deliveredEarly
}

/// One `await` of a promise: a continuation that the outcome or the awaiting task's cancellation
/// resumes, whichever comes first, exactly once.
///
/// An awaiter is a plain observer — no derived promise, no link — counted as a dependent of the
/// promise (R7). When its task is cancelled it resumes at once with the cancellation error and the
/// promise loses that dependent, which cancels it if nobody else waits for it (B2, B7).
///
/// The observer is registered first, then armed, so a lost interest is never reported before the
/// dependent it pairs with. `phase` decides who resumes the continuation:
/// - `registered` (0): registered, continuation not armed yet;
/// - `armed` (1): the continuation may be resumed by the outcome or the cancellation;
/// - `cancelledEarly` (2): cancelled before arming; the awaiting side resumes with the error;
/// - `resumed` (3): resumed, by whichever moved `phase` here from `armed`;
/// - `deliveredEarly` (4): the outcome came before arming; the awaiting side reads it from the
///   source.
@usableFromInline
final class AwaitObserver<Value: Sendable>: Observer<Value>, @unchecked Sendable {
    // Safety (`@unchecked Sendable`): `continuation` is written once, before `phase` moves from
    // `registered` to `armed` (release), and read only by the one party that then moves `phase`
    // from `armed` to `resumed` (acquire). `source` follows `Observer`'s rule; when the outcome
    // comes early it is handed over through `phase` (`deliveredEarly`, release/acquire).
    @usableFromInline let phase = Atomic<AwaitPhase>(.registered)
    @usableFromInline @exclusivity(unchecked) var continuation: UnsafeContinuation<Outcome<Value>, Never>?

    @usableFromInline
    init(runner: @escaping @Sendable (Observer<Value>) -> Void) {
        super.init(context: InlineContext.shared, runner: runner)
    }

    @inlinable
    static func make() -> AwaitObserver {
        AwaitObserver { item in
            let observer = unsafeDowncast(item, to: AwaitObserver.self)
            // Before arming, the outcome stays with `source` for the awaiting side.
            if observer.phase.compareExchange(expected: AwaitPhase.registered, desired: AwaitPhase.deliveredEarly, ordering: .acquiringAndReleasing).exchanged { return }
            if let outcome = observer.receivedOutcome() { observer.resume(with: outcome) }
        }
    }

    /// Resumes the armed continuation with `outcome` unless another party did; returns whether
    /// this call did.
    @inlinable
    @discardableResult
    func resume(with outcome: Outcome<Value>) -> Bool {
        guard phase.compareExchange(expected: AwaitPhase.armed, desired: AwaitPhase.resumed, ordering: .acquiringAndReleasing).exchanged else {
            return false
        }
        let continuation = self.continuation.unsafelyUnwrapped
        self.continuation = nil
        continuation.resume(returning: outcome)
        return true
    }
}

extension Promise {
    /// Waits for the outcome without throwing; the awaiting task's cancellation resumes the wait
    /// at once with ``PromiseError/Code/cancelled`` and tells the promise it lost this waiter.
    /// For the bridge module (`value`, `outcome`).
    @inlinable
    package func awaitOutcome() async -> Outcome<Value> {
        let observer = AwaitObserver<Value>.make()
        let core = self.core
        return await withTaskCancellationHandler {
            await withUnsafeContinuation { continuation in
                observer.continuation = continuation
                core.observe(observer)
                let (armed, phase) = observer.phase.compareExchange(expected: AwaitPhase.registered, desired: AwaitPhase.armed, ordering: .acquiringAndReleasing)
                if armed { return }
                observer.continuation = nil
                observer.phase.store(AwaitPhase.resumed, ordering: .relaxed)
                if phase == AwaitPhase.deliveredEarly, let outcome = observer.receivedOutcome() {
                    continuation.resume(returning: outcome)
                } else {
                    continuation.resume(returning: .failure(PromiseError.cancelled()))
                    loseInterest(core)
                }
            }
        } onCancel: {
            if observer.phase.compareExchange(expected: AwaitPhase.registered, desired: AwaitPhase.cancelledEarly, ordering: .acquiringAndReleasing).exchanged { return }
            if observer.resume(with: .failure(PromiseError.cancelled())) { loseInterest(core) }
        }
    }
}
