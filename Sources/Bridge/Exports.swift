@_exported import ActorPromise
