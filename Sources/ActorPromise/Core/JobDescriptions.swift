import ActorPromiseExecutors

// What each kind of promise job is, for a test runtime's record of its order (the sites are
// recorded in debug builds only).

extension StateActor: DescribedJob {
    nonisolated package var jobDescription: String {
        "handler of the promise made at \(siteText ?? "an unrecorded site")"
    }
}

extension Observer: DescribedJob {
    package var jobDescription: String {
        "callback on the promise made at \(sourceSiteText ?? "an unrecorded site")"
    }
}

extension DeliveryGroup: DescribedJob {
    package var jobDescription: String {
        "handlers of the promise made at \(source?.siteText ?? "an unrecorded site")"
    }
}
