import Testing
import ActorPromise

/// A download screen: a bar that fills as files arrive.
@MainActor
final class DownloadsModel {
    var steps: [String] = []
    var fraction = 0.0
    var finished = false

    func download(_ files: [Promise<Int>]) -> Promise<Void> {
        Promise.all(files, progress: .on(.main) { progress in
            self.steps.append("\(progress)")
            self.fraction = progress.fractionCompleted
        })
        .then(on: .main) { _ in
            self.steps.append("done")
            self.finished = true
        }
    }
}

@Suite("Batch progress: all, allSettled, map report completed out of total")
struct ProgressTests {
    @Test("a @MainActor view model sees 1/3, 2/3, 3/3 in order on .main, before the batch's own handler there")
    @MainActor
    func viewModelOnMain() async throws {
        let model = DownloadsModel()
        let files = (0..<3).map { _ in Promise<Int>.pending() }
        let done = model.download(files.map(\.promise))
        for (index, file) in files.enumerated().reversed() { file.resolver.fulfill(index) }
        try await done.value
        #expect(model.steps == ["1/3", "2/3", "3/3", "done"])
        #expect(model.fraction == 1)
    }

    @Test("map(maxConcurrency:) reports on the pool in order, one call at a time, ending at the total")
    func mapOnPool() async throws {
        let seen = Locked<[Int]>([])
        let overlapping = Locked(0)
        let inside = Locked(false)
        let reported = Countdown(200)
        let values = try await Promise<Int>.map(0..<200, maxConcurrency: 4, progress: .on(.global) { progress in
            if inside.withLock({ let was = $0; $0 = true; return was }) { overlapping.increment() }
            seen.append(progress.completed)
            #expect(progress.total == 200)
            inside.withLock { $0 = false }
            reported.tick()
        }) { element in Promise { element * 2 } }.value
        #expect(values == (0..<200).map { $0 * 2 })
        try await reported.wait()   // the last report is submitted before the result, and may run after it
        #expect(seen.current == Array(1...200))
        #expect(overlapping.current == 0, "the handler never ran twice at once")
    }

    @Test("allSettled counts rejected inputs too")
    func allSettledCountsRejections() async throws {
        let queue = SerialQueue(label: "progress")
        let seen = Locked<[String]>([])
        let inputs = [Promise(value: 1), Promise(error: TestError()), Promise(value: 3)]
        let settled = Promise.allSettled(inputs, progress: .on(queue) { progress in seen.withLock { $0.append("\(progress)") } })
        let outcomes = try await settled.then(on: queue) { $0 }.value
        #expect(outcomes.count == 3)
        #expect(seen.current == ["1/3", "2/3", "3/3"])
    }

    @Test("after cancel, and after a failure, no further report starts")
    func silentOnceStopped() async throws {
        let queue = SerialQueue(label: "progress.stop")
        for failing in [false, true] {
            let seen = Locked<[Int]>([])
            let inputs = (0..<5).map { _ in Promise<Int>.pending(tracksInterest: false) }
            let batch = Promise.all(inputs.map(\.promise), progress: .on(queue) { seen.append($0.completed) })
            inputs[0].resolver.fulfill(0)
            inputs[1].resolver.fulfill(1)
            try await Promise<Void>().then(on: queue) { _ in }.value   // the queue ran both reports
            #expect(seen.current == [1, 2])
            if failing { inputs[2].resolver.reject(TestError()) } else { batch.cancel() }
            for input in inputs[2...] { input.resolver.fulfill(9) }
            try await Promise<Void>().then(on: queue) { _ in }.value
            #expect(seen.current == [1, 2], failing ? "silent after the failure" : "silent after cancel")
            await #expect(throws: (any Error).self) { try await batch.value }
        }
    }
}
