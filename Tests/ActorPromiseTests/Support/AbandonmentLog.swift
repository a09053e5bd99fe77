@testable import ActorPromise

/// The abandonment reports of the whole test process (``PromiseDiagnostics/abandonmentHandler``:
/// R8's released resolvers, L1's dropped handlers).
///
/// The handler is process-wide and suites run side by side, so the recording handler is installed
/// once and never replaced or removed: a suite that set a handler of its own, or reset it when it
/// ended, took the reports another suite was waiting for. A test picks out its own reports by the
/// tag bound on the thread that reported them (code that reports on the test's own thread), or by
/// the site of the promise (debug builds, which record sites).
enum AbandonmentLog {
    struct Entry: Sendable {
        let error: PromiseError
        /// ``tag`` as bound on the reporting thread.
        let tag: String?
    }

    /// Bound by a test around code that reports on the test's thread.
    @TaskLocal static var tag: String?

    private static let entries = Locked<[Entry]>([])

    private static let installed: Void = {
        PromiseDiagnostics.abandonmentHandler = { error in
            let entry = Entry(error: error, tag: tag)
            entries.withLock { $0.append(entry) }
        }
    }()

    /// Installs the recording handler, if it is not installed yet. Call it before the code whose
    /// reports the test reads.
    static func install() { installed }

    /// Runs `body` with the recording handler installed and `tag` bound, and returns the reports
    /// made under that tag meanwhile.
    static func recording(tag: String, _ body: () throws -> Void) rethrows -> [PromiseError] {
        install()
        let start = count
        try $tag.withValue(tag) { try body() }
        return entries.withLock { $0[start...].filter { $0.tag == tag }.map(\.error) }
    }

    /// How many reports the log holds: a test's starting point for ``reports(site:since:)``.
    static var count: Int { entries.withLock { $0.count } }

    /// The reports of promises made at `site` ("Module/File.swift:42") among those after the first
    /// `start`; debug builds only record sites, so in release builds this is empty.
    static func reports(site: String, since start: Int) -> [PromiseError] {
        entries.withLock { $0[start...].filter { $0.error.site == site }.map(\.error) }
    }
}
