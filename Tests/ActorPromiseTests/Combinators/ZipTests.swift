import Testing
import ActorPromise

@Suite("zip")
struct ZipTests {
    @Test("zip combines promises of different types, any arity")
    func differentTypes() async throws {
        let (number, text, flag) = try await zip(Promise(value: 1), Promise(value: "two"), Promise(value: true)).value
        #expect(number == 1 && text == "two" && flag)
        let pair = try await zip(Promise(value: 1.5), Promise(value: [1, 2])).value
        #expect(pair.0 == 1.5 && pair.1 == [1, 2])
    }

    @Test("a rejected input rejects zip and cancels the others")
    func rejection() async throws {
        let (pending, _keep) = Promise<String>.pending()
        await #expect(throws: TestError(id: 5)) {
            try await zip(Promise<Int>(error: TestError(id: 5)), pending).value
        }
        #expect(pending.isCancelled)
        _ = _keep
    }
}
