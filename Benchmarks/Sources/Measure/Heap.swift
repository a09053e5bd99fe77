import Foundation

/// Resident memory of this process in bytes, from /proc/self/statm on Linux (page-granular: use a
/// large count and divide). Elsewhere, the physical footprint reported by the kernel.
func heapInUse() -> Int {
    #if os(Linux)
    let statm = (try? String(contentsOfFile: "/proc/self/statm", encoding: .utf8)) ?? "0 0"
    let resident = statm.split(separator: " ").dropFirst().first.flatMap { Int($0) } ?? 0
    return resident * Int(sysconf(Int32(_SC_PAGESIZE)))
    #else
    return Int(ProcessInfo.processInfo.physicalMemory) // not meaningful per process; Linux is the reference
    #endif
}
