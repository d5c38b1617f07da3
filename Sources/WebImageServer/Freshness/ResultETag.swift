import Crypto
import Foundation

/// A result's ETag: its source's identity and its result key (options, format, the server's
/// recipe) digested, so every instance gives the same result the same tag, and a source that
/// changed gives every result of it a new one.
enum ResultETag {
    /// The quoted tag of the result under `resultKey` made from source bytes of `identity`.
    static func make(identity: String, resultKey: String) -> String {
        let digest = SHA256.hash(data: Data((identity + "\n" + resultKey).utf8))
        return "\"" + digest.prefix(16).map { String(format: "%02x", $0) }.joined() + "\""
    }
}
