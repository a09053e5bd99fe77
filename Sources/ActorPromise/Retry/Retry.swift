/// How long to wait between attempts of a retried operation.
public enum RetryDelay: Sendable, Equatable {
    /// Retry at once.
    case none
    /// Wait the same time before every retry.
    case fixed(Duration)
    /// Wait `initial`, then `initial × multiplier`, and so on, capped at `maximum`; each wait is
    /// then shortened by a random fraction of up to `jitter` (0 = no jitter, 1 = "full jitter"),
    /// so that many clients do not retry in lock-step.
    case exponential(initial: Duration, multiplier: Double = 2, maximum: Duration = .seconds(60), jitter: Double = 0)

    /// How long to wait before the next attempt, once `attempt` attempts failed (attempt ≥ 1).
    ///
    /// - Parameter attempt: How many attempts failed so far.
    /// - Returns: The wait; `.zero` for ``none``.
    public func duration(afterAttempt attempt: Int) -> Duration {
        switch self {
        case .none:
            return .zero
        case .fixed(let duration):
            return duration
        case .exponential(let initial, let multiplier, let maximum, let jitter):
            let growth = power(multiplier, max(0, attempt - 1))
            let base = min(initial * growth, maximum)
            let fraction = jitter > 0 ? Double.random(in: 0...min(1, jitter)) : 0
            return base * (1 - fraction)
        }
    }
}

/// What to do after an attempt failed, decided per attempt.
public enum RetryDecision: Sendable, Equatable {
    /// Start the next attempt now.
    case retry
    /// Start the next attempt after a wait.
    case retryAfter(Duration)
    /// Give up: the retried promise is rejected with the attempt's error.
    case stop
}

/// `base` raised to a whole `exponent` (≥ 0), by repeated multiplication: the module needs no
/// libm import for it, and the exponent is an attempt count, so no fraction is lost.
private func power(_ base: Double, _ exponent: Int) -> Double {
    var result = 1.0
    var remaining = exponent
    while remaining > 0 {
        result *= base
        remaining -= 1
    }
    return result
}
