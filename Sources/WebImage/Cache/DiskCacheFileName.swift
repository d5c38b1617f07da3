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
        return digest.map { byte in
            let hex = String(byte, radix: 16)
            return byte < 16 ? "0" + hex : hex
        }.joined()
    }

    /// SDWebImage's extension rule, made safe for the file system.
    ///
    /// The extension is the key's URL path extension, or the plain string's when the key is not a
    /// URL; ":" and NUL are removed; longer than 222 characters drops it; then only ASCII letters and
    /// digits survive, so nothing like `/`, `..` or a newline can reach a path.
    static func pathExtension(forKey key: String) -> String {
        let raw: String
        if let url = URL(string: key) {
            raw = url.pathExtension
        } else {
            raw = String(plainPathExtension(key))
        }
        let stripped = raw.unicodeScalars.filter { $0 != ":" && $0 != "\0" }
        guard stripped.count <= maxExtensionLength else { return "" }
        let safe = stripped.filter { $0.isASCII && ($0.properties.isAlphabetic || ("0"..."9").contains($0)) }
        return String(String.UnicodeScalarView(safe))
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
