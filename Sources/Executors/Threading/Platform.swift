#if canImport(Glibc)
@_exported import Glibc
#elseif canImport(Musl)
@_exported import Musl
#elseif canImport(Darwin)
@_exported import Darwin
#endif

/// The number of processors the system reports online, at least 1.
package let onlineProcessorCount: Int = max(1, Int(sysconf(Int32(_SC_NPROCESSORS_ONLN))))
