/// Where a promise was made: a `#fileID` literal and a line.
///
/// Debug builds store one in every promise (see ``PromiseCore/site``) for the reports of
/// ``PromiseDiagnostics`` and for `debugDescription`; release builds store none, so that the
/// promise stays as small as it can.
@usableFromInline
struct PromiseSite: Sendable, CustomStringConvertible {
    /// The file, empty when unknown.
    @usableFromInline let file: StaticString
    @usableFromInline let line: UInt32

    /// The site of a call: pass `#fileID` and `#line`.
    @inlinable
    init(fileID: StaticString, line: UInt) {
        file = fileID
        self.line = UInt32(clamping: line)
    }

    /// An unknown site.
    @inlinable
    init() {
        file = ""
        line = 0
    }

    /// `File.swift:42`, or `nil` if unknown.
    var text: String? {
        let name = file.description
        return name.isEmpty ? nil : "\(name):\(line)"
    }

    @usableFromInline var description: String { text ?? "an unknown site" }
}
