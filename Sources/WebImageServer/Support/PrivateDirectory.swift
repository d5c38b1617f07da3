import Foundation

/// A directory only this user can enter (mode 0700), under an unpredictable name in the
/// temporary directory (`mkdtemp`): no other user can read what it holds or place a file or a
/// link where the server will write. ``remove()`` deletes it with everything in it.
final class PrivateDirectory: Sendable {
    /// Where it is.
    let url: URL

    /// A new directory named `prefix` and six random characters, in `TMPDIR` (or `/tmp`).
    init(prefix: String) throws {
        let parent = FileManager.default.temporaryDirectory.path
        var template = Array((parent + "/" + prefix + "XXXXXX").utf8CString)
        let made = template.withUnsafeMutableBufferPointer { mkdtemp($0.baseAddress!) != nil }
        guard made else {
            throw PrivateDirectoryError(message: "Could not make a private temporary directory in \(parent): "
                                            + String(cString: strerror(errno)) + ".")
        }
        let path = String(decoding: template.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        url = URL(fileURLWithPath: path, isDirectory: true)
    }

    /// Deletes the directory and everything in it.
    func remove() {
        try? FileManager.default.removeItem(at: url)
    }
}

/// The private temporary directory could not be made.
struct PrivateDirectoryError: Error, CustomStringConvertible {
    let message: String
    var description: String { message }
}
