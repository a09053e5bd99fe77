// A tour of ActorPromise: a chain whose error is caught, a branch that is cancelled while its
// sibling carries on, handlers on two execution contexts, and the trace of a failure.
import ActorPromise
import Dispatch

struct OutOfStock: Error, CustomStringConvertible {
    let item: String
    var description: String { "\(item) is out of stock" }
}

/// Pretends to look up a price on another thread, the way callback-based code does.
func fetchPrice(of item: String) -> Promise<Int> {
    Promise { resolver in
        WorkerPool.global.submit(ClosureWorkItem {
            if item == "unicorn" { resolver.reject(OutOfStock(item: item)) } else { resolver.fulfill(item.count * 10) }
        })
    }
}

print("1. A chain whose error is caught")
let caught = fetchPrice(of: "unicorn")
    .then { price in price * 2 }                    // skipped: the lookup failed
    .recover { error -> Int in
        print("   recovered from: \(error)")
        return 0
    }
    .then { price in print("   price after recovery: \(price)") }
try await caught.value

print("2. A branch cancelled while its sibling carries on")
let (order, orderResolver) = Promise<String>.pending()
orderResolver.onCancel { print("   (never printed: cancelling a branch does not cancel its parent)") }
let shipping = order.then { id in "shipping \(id)" }
let invoice = order.then { id in "invoice for \(id)" }
shipping.cancel(reason: OutOfStock(item: "boxes"))
orderResolver.fulfill("order #42")
print("   invoice branch: \(try await invoice.value)")
do {
    _ = try await shipping.value
} catch let error as PromiseError where error.code == .cancelled {
    print("   shipping branch: cancelled (\(error.reason.map { "\($0)" } ?? "no reason"))")
}
print("   order itself cancelled? \(order.isCancelled)")

print("3. Handlers on two contexts")
let ticket = fetchPrice(of: "kettle")
let onPool = ticket.then(on: .global) { price in "global pool saw \(price)" }
let inline = ticket.then(on: .inline) { price in "inline saw \(price) on the settling thread" }
print("   \(try await onPool.value)")
print("   \(try await inline.value)")

print("4. A pending promise whose resolver is dropped tells its observers")
PromiseDiagnostics.abandonmentHandler = { error in print("   diagnostics: abandoned promise created at \(error.site ?? "?")") }
let orphan: Promise<Int> = {
    let (promise, resolver) = Promise<Int>.pending()
    _ = resolver
    return promise
}()
do { _ = try await orphan.value } catch { print("   awaiting it throws: \((error as? PromiseError)?.code ?? .abandoned)") }
print("5. A callback API wrapped for async/await, cancelled from a Task")
/// A timer-based callback API of the usual shape: it calls back once, unless cancelled first.
final class Countdown: @unchecked Sendable {
    // Safety: `cancelled` is only touched on `queue`.
    private let queue = DispatchQueue(label: "countdown")
    private var cancelled = false
    func start(seconds: Double, completion: @escaping @Sendable (Result<String, any Error>) -> Void) {
        queue.asyncAfter(deadline: .now() + seconds) { [self] in
            if !cancelled { completion(.success("rang after \(seconds)s")) }
        }
    }
    func cancel() { queue.async { self.cancelled = true } }
}
func countdown(_ seconds: Double) async throws -> String {
    try await withCompletion { (resolver: Resolver<String>) in
        let timer = Countdown()
        timer.start(seconds: seconds, completion: resolver.completion())
        resolver.onCancel {
            print("   timer of \(seconds)s cancelled")
            timer.cancel()
        }
    }
}
print("   short timer: \(try await countdown(0.05))")
let long = Task { try await countdown(30) }
try await Task.sleep(for: .milliseconds(50))   // the demo lets the timer start before cancelling
long.cancel()
do { _ = try await long.value } catch { print("   awaiting task threw: \(error)") }
print("6. Where an error came from: the path it took through the chain")
let quote = Promise<Int>.retry(attempts: 2) { _ in fetchPrice(of: "unicorn") }
let total = zip(quote, fetchPrice(of: "pony"))
    .map { unicorn, pony in unicorn + pony }
    .timeout(after: .seconds(5))
do {
    print("   total: \(try await total.value)")
} catch {
    // The error is the one `fetchPrice` rejected with; its trace says how it got here.
    print("   failed: \(error)")
    let trace = PromiseTrace.of(error).map(String.init(describing:)) ?? "(traces are off in release builds)"
    for line in trace.split(separator: "\n") { print("   \(line)") }
}

print("done")
