// Stand-ins for what README.md's snippets leave to the reader.
import Foundation

struct User: Sendable {
    var name: String
}
