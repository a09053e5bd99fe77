// Stand-ins for what the Semantics article's snippets leave to the reader.
import ActorPromise
import Foundation

struct Config: Sendable {
    var name = "server"
}
let config = Config()

func log(_ message: String) { print(message) }
func startServer(_ config: Config) {}

struct Report: Sendable {}
struct Status: Sendable {
    var isDone: Bool
}

/// A job whose status is polled until it is done.
struct Job: Sendable {
    func status() -> Promise<Status> { Promise(value: Status(isDone: true)) }
    func report() -> Promise<Report> { Promise(value: Report()) }
}

struct API: Sendable {
    func search(_ query: String) -> Promise<[String]> { Promise(value: [query]) }
    func load() -> Promise<Data> { Promise(value: Data()) }
}
let api = API()

struct Page: Sendable {}
func parse(_ data: Data) -> Page { Page() }
func decode(_ data: Data) -> Page { Page() }
func show(_ page: Page) {}
func hideSpinner() {}
let completion: @Sendable (Result<Data, any Error>) -> Void = { _ in }
let url = URL(fileURLWithPath: "/data")

/// A store that loads rows on a thread of its own.
struct RowStore: Sendable {
    func load(_ path: String) -> Promise<[String]> { Promise(value: [path]) }
}

enum ServiceContext {
    @TaskLocal static var current: String?
}
