/// How a promise settled: its value, or the error that rejected it.
public typealias Outcome<Value> = Result<Value, any Error>
