/// Where a promise was made: a `#fileID` literal and a line, in two words.
///
/// Debug builds store one in every promise (see ``PromiseCore/site``) for the reports of
/// ``PromiseDiagnostics`` and for `debugDescription`; release builds store none, so that the
/// promise stays as small as it can.
@usableFromInline
struct PromiseSite: Sendable, CustomStringConvertible {
    // Safe to share: it points into a string literal, read-only data that lives as long as the
    // process.
    @usableFromInline nonisolated(unsafe) let file: UnsafePointer<UInt8>?
    @usableFromInline let line: UInt32
    @usableFromInline let fileLength: UInt16

    /// The site of a call: pass `#fileID` and `#line`.
    @inlinable
    init(fileID: StaticString, line: UInt) {
        // A literal of one Unicode scalar has no bytes to point to; such a site stays unknown.
        if fileID.hasPointerRepresentation {
            file = fileID.utf8Start
            fileLength = UInt16(clamping: fileID.utf8CodeUnitCount)
        } else {
            file = nil
            fileLength = 0
        }
        self.line = UInt32(clamping: line)
    }

    /// An unknown site.
    @inlinable
    init() {
        file = nil
        line = 0
        fileLength = 0
    }

    /// `File.swift:42`, or `nil` if unknown.
    var text: String? {
        guard let file else { return nil }
        let name = String(decoding: UnsafeBufferPointer(start: file, count: Int(fileLength)), as: UTF8.self)
        return "\(name):\(line)"
    }

    @usableFromInline var description: String { text ?? "an unknown site" }
}
