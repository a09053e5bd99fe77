import Testing
import ActorPromise

@Suite("reduce")
struct ReduceTests {
    @Test("reduce folds in input order")
    func folds() async throws {
        let (first, firstResolver) = Promise<String>.pending()
        let text = Promise.reduce([first, Promise(value: "b"), Promise(value: "c")], into: "") { $0 + $1 }
        firstResolver.fulfill("a")
        #expect(try await text.value == "abc")
        #expect(try await Promise<Int>.reduce([], into: 42) { $0 + $1 }.value == 42)
    }

    @Test("a rejection, of an input or of combine, rejects the result")
    func rejects() async throws {
        await #expect(throws: TestError(id: 1)) {
            try await Promise.reduce([Promise(value: 1), Promise(error: TestError(id: 1))], into: 0) { $0 + $1 }.value
        }
        await #expect(throws: TestError(id: 2)) {
            try await Promise.reduce([Promise(value: 1)], into: 0) { _, _ in throw TestError(id: 2) }.value
        }
    }

    @Test("reduce over 10,000 inputs")
    func tenThousand() async throws {
        let sum = Promise.reduce((1...10_000).map { Promise(value: $0) }, into: 0) { $0 + $1 }
        #expect(try await sum.value == 50_005_000)
    }
}
