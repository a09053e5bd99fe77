import ActorPromiseTesting

/// The randomized tests draw from the test runtime's generator (`ActorPromiseTesting`), so a
/// failing round is replayed from its seed.
typealias SplitMix64 = ActorPromiseTesting.SplitMix64
