import Crypto
import Foundation

/// Redis key names: `<prefix>:<namespace>:<md5 of the cache key>` for values and
/// `<prefix>:<namespace>:lease:<md5>` for single-flight leases. The cache key is hashed as the
/// disk cache names its files (lowercase hex MD5 of the UTF-8 key), so any key, however long or
/// odd, makes a short, safe Redis key.
struct RedisKeys: Sendable {
    let prefix: String

    init(prefix: String, namespace: String) {
        self.prefix = prefix + ":" + namespace + ":"
    }

    func value(_ key: String) -> Data {
        Data((prefix + Self.hash(key)).utf8)
    }

    func lease(_ key: String) -> Data {
        Data((prefix + "lease:" + Self.hash(key)).utf8)
    }

    /// The set naming the values stored in `group` (see ``RedisStore/store(_:forKey:inGroup:ttl:)``).
    func group(_ group: String) -> Data {
        Data((prefix + "group:" + Self.hash(group)).utf8)
    }

    /// The pattern matching every value and lease of this namespace (for `SCAN` on clear).
    var pattern: Data { Data((prefix + "*").utf8) }

    static func hash(_ key: String) -> String {
        let digits = Array("0123456789abcdef".utf8)
        var hex: [UInt8] = []
        hex.reserveCapacity(32)
        for byte in Insecure.MD5.hash(data: Data(key.utf8)) {
            hex.append(digits[Int(byte >> 4)])
            hex.append(digits[Int(byte & 0x0F)])
        }
        return String(decoding: hex, as: UTF8.self)
    }
}
