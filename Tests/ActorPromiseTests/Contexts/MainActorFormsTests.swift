import Testing
import ActorPromise

/// The main-actor forms of `get`, `validate`, the two-handler `then`, the promise-returning
/// `recover`, `whenComplete { value, error in }`, `reduce(on:)`, `Promise.map(_:on:)` and
/// `then(isolatedTo: MainActor.shared)`: written as a view model would, unannotated, touching its
/// state (R9).
@Suite("R9 main-actor forms of every operator")
@MainActor
struct MainActorFormsTests {
    @MainActor final class Model {
        var log: [String] = []
        var count = 0

        func run(_ value: Promise<Int>, _ done: Promise<Void>, failing: Promise<Int>) -> [Promise<Void>] {
            [
                value.get(on: .main) { v in self.count = v }.then(on: .main) { _ in self.log.append("get") },
                value.validate(on: .main) { v in v == self.count || self.count == 0 }.then(on: .main) { _ in self.log.append("validate") },
                value.then(on: .main, onFulfilled: { v in self.count += v }, onRejected: { _ in self.count = -1 }),
                failing.recover(on: .main) { _ in Promise(value: self.count) }.then(on: .main) { _ in self.log.append("recover") },
                value.then(isolatedTo: MainActor.shared) { _, v in self.log.append("isolatedTo \(v)") },
                Promise.reduce([value, value], into: 0, on: .main) { sum, v in sum + v + self.count * 0 }
                    .then(on: .main) { sum in self.log.append("reduce \(sum)") },
                Promise<Int>.map([1, 2], on: .main) { v in Promise(value: v * 10 + self.count * 0) }
                    .then(on: .main) { values in self.log.append("map \(values)") },
                done.get(on: .main) { self.log.append("void get") },
            ]
        }
    }

    @Test("R9 each form runs on the main actor and sees the model's state")
    func everyForm() async throws {
        let model = Model()
        let steps = model.run(Promise(value: 2), Promise<Void>(), failing: Promise(error: TestError()))
        for step in steps { try await step.value }
        let (called, call) = Promise<String>.pending()
        Promise(value: 5).whenComplete(on: .main) { value, error in call.fulfill("\(value ?? -1) \(error == nil)") }
        #expect(try await called.value == "5 true")
        #expect(Set(model.log) == ["get", "validate", "recover", "isolatedTo 2", "reduce 4", "map [10, 20]", "void get"])
    }
}
