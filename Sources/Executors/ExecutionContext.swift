/// A place where promise handlers run.
///
/// Every operator that takes a handler accepts a context (`then(on:)`). The library ships
/// ``WorkerPool/global`` (the default: a fixed pool of threads sized to the cores) and
/// ``InlineContext/inline`` (synchronous, for cheap handlers). Contexts modelled on dispatch
/// queues, operation queues and run-loop threads conform as well.
///
/// A context runs each submitted ``Runnable`` once (or discards it once). Work submitted from
/// one thread to a serial context runs in submission order.
public protocol ExecutionContext: AnyObject, Sendable {
    /// Schedules `item` to run on this context.
    ///
    /// - Parameter item: The work. The context calls ``Runnable/run()`` once, or
    ///   ``Runnable/discard()`` once if it drops the item.
    func submit(_ item: any Runnable)
}
