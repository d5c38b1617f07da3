import Crypto
import Foundation

/// File names for cache keys: lowercase hex MD5 of the UTF-8 key plus a sanitised extension.
enum DiskCacheFileName {
    /// The longest extension kept: NAME_MAX (255) − 32 hex digits − 1 dot.
    static let maxExtensionLength = 222

    /// `<md5>.<ext>`, or `<md5>` when the key has no usable extension.
    static func name(forKey key: String) -> String {
        let hash = legacyName(forKey: key)
        let ext = pathExtension(forKey: key)
        return ext.isEmpty ? hash : hash + "." + ext
    }

    /// `<md5>` alone: the name entries had before extensions were added (still read as a fallback).
    static func legacyName(forKey key: String) -> String {
        let digest = Insecure.MD5.hash(data: Data(key.utf8))
        let digits: StaticString = "0123456789abcdef"
        return String(unsafeUninitializedCapacity: 32) { buffer in
            var i = 0
            for byte in digest {
                buffer[i] = digits.utf8Start[Int(byte >> 4)]
                buffer[i + 1] = digits.utf8Start[Int(byte & 0x0F)]
                i += 2
            }
            return i
        }
    }

    /// SDWebImage's extension rule, made safe for the file system.
    ///
    /// The extension is the key's URL path extension, or the plain string's when the key is not a
    /// URL; ":" and NUL are removed; longer than 222 characters drops it; then only ASCII letters and
    /// digits survive, so nothing like `/`, `..` or a newline can reach a path.
    static func pathExtension(forKey key: String) -> String {
        let raw: String
        if let simple = simpleURLPathExtension(key) {
            raw = String(simple)
        } else if let url = URL(string: key) {
            raw = url.pathExtension
        } else {
            raw = String(plainPathExtension(key))
        }
        if raw.utf8.allSatisfy({ $0 < 0x80 }) { return asciiSanitized(raw) }
        let stripped = raw.unicodeScalars.filter { $0 != ":" && $0 != "\0" }
        guard stripped.count <= maxExtensionLength else { return "" }
        let safe = stripped.filter { $0.isASCII && ($0.properties.isAlphabetic || ("0"..."9").contains($0)) }
        return String(String.UnicodeScalarView(safe))
    }

    /// The same rule for an ASCII extension, on bytes: letters and digits kept, and nothing when
    /// more than 222 characters are left after removing ":" and NUL.
    private static func asciiSanitized(_ raw: String) -> String {
        var kept = 0
        var safe: [UInt8] = []
        for byte in raw.utf8 where byte != UInt8(ascii: ":") && byte != 0 {
            kept += 1
            switch byte {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
                 UInt8(ascii: "0")...UInt8(ascii: "9"):
                safe.append(byte)
            default: continue
            }
        }
        return kept <= maxExtensionLength ? String(decoding: safe, as: UTF8.self) : ""
    }

    /// The path extension of a plain `scheme://host/path` key without parsing a `URL`: ASCII, a
    /// path after the host, and no query, fragment, percent escape or backslash. For such keys the
    /// URL's path extension and the plain string's are the same; nil sends other keys to the
    /// parser.
    static func simpleURLPathExtension(_ key: String) -> Substring? {
        let utf8 = key.utf8
        guard let colon = utf8.firstIndex(of: UInt8(ascii: ":")),
              utf8[colon...].starts(with: "://".utf8) else { return nil }
        let authority = utf8.index(colon, offsetBy: 3)
        guard let pathStart = utf8[authority...].firstIndex(of: UInt8(ascii: "/")), pathStart > authority else {
            return nil
        }
        for byte in utf8 {
            switch byte {
            case 0x21...0x7E where byte != UInt8(ascii: "?") && byte != UInt8(ascii: "#")
                && byte != UInt8(ascii: "%") && byte != UInt8(ascii: "\\"):
                continue
            default:
                return nil
            }
        }
        // The key's last non-empty component is the path's, unless the path is only slashes.
        guard utf8[pathStart...].contains(where: { $0 != UInt8(ascii: "/") }) else { return "" }
        return plainPathExtension(key)
    }

    /// `NSString.pathExtension`'s rule — the text after the last `.` of the last non-empty
    /// `/`-separated component, unless that dot starts the component — without NSString, whose
    /// Linux implementation traps on keys such as `b////.//` or `http://x:port//é` (found by
    /// fuzzing; see docs/RELIABILITY.md).
    static func plainPathExtension(_ key: String) -> Substring {
        guard let component = key.split(separator: "/").last,
              let dot = component.lastIndex(of: "."), dot != component.startIndex else { return "" }
        return component[component.index(after: dot)...]
    }
}
