// One import gives the whole API: the execution contexts live in a module of their own, which the
// promises build on, and are re-exported here.
@_exported import ActorPromiseExecutors
