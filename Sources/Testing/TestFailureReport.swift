#if canImport(Testing)
import Testing
#endif
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Fails the current Swift Testing test with `message`; outside a test, prints it to standard
/// error as a warning.
func reportTestFailure(_ message: String) {
    #if canImport(Testing)
    if Test.current != nil {
        Issue.record(Comment(rawValue: message))
        return
    }
    #endif
    var line = "warning: \(message)\n"
    line.withUTF8 { _ = write(2, $0.baseAddress, $0.count) }
}
