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
        let site = source.flatMap { $0._withUnsafeGuaranteedRef { $0.siteText } } ?? "an unrecorded site"
        return "callback on the promise made at \(site)"
    }
}

extension DeliveryGroup: DescribedJob {
    package var jobDescription: String {
        let site = (source as? any SiteNamed)?.siteText
        return "handlers of the promise made at \(site ?? "an unrecorded site")"
    }
}

/// A promise that can name where it was made.
protocol SiteNamed {
    var siteText: String? { get }
}

extension StateActor: SiteNamed {}
