import Foundation
import WebImageCodecs

extension ImageServerURL {
    /// The formats ``preferredFormat(accept:preferring:)`` tries by default, best first: AVIF and
    /// WebP are far smaller than JPEG and PNG at the same look.
    public static let defaultFormatPreference = ["avif", "webp"]

    /// The first of `preferring` whose media type `accept` (an HTTP `Accept` value, or the types a
    /// client decodes joined by commas) lists with a quality above 0; nil when none is. Wildcards
    /// (`image/*`, `*/*`) name no format, so they choose nothing, as image servers treat them.
    /// Only the first 8 KiB of `accept` is read.
    public static func preferredFormat(accept: String, preferring: [String] = defaultFormatPreference) -> String? {
        let accepted = acceptedMediaTypes(accept)
        return preferring.first { format in
            guard let type = mediaType(forFormat: format) else { return false }
            return accepted.contains(type)
        }
    }

    /// This URL with `f:FORMAT` for ``preferredFormat(accept:preferring:)``; unchanged when it
    /// finds none (the server then keeps the source's format or its own default).
    public func choosingFormat(accept: String, preferring: [String] = defaultFormatPreference) throws -> Self {
        guard let format = Self.preferredFormat(accept: accept, preferring: preferring) else { return self }
        return try self.format(format)
    }

    /// The media type the server sends for a format name as URLs write it.
    static func mediaType(forFormat format: String) -> String? {
        switch format.lowercased() {
        case "avif": "image/avif"
        case "webp": "image/webp"
        case "jxl": "image/jxl"
        case "png": "image/png"
        case "jpeg", "jpg": "image/jpeg"
        case "gif": "image/gif"
        case "heic": "image/heic"
        case "tiff": "image/tiff"
        case "bmp": "image/bmp"
        case "ico": "image/x-icon"
        case "svg": "image/svg+xml"
        default: nil
        }
    }

    /// The lowercased media types `accept` lists with a quality above 0.
    static func acceptedMediaTypes(_ accept: String) -> Set<String> {
        var result = Set<String>()
        for item in accept.utf8.prefix(8192).split(separator: UInt8(ascii: ",")) {
            let parts = item.split(separator: UInt8(ascii: ";")).map {
                String(decoding: $0, as: UTF8.self).trimmingCharacters(in: .whitespaces).lowercased()
            }
            guard let type = parts.first, !type.isEmpty else { continue }
            let refused = parts.dropFirst().contains { parameter in
                let pair = parameter.split(separator: "=", maxSplits: 1)
                guard pair.count == 2, pair[0].trimmingCharacters(in: .whitespaces) == "q" else { return false }
                return (Double(pair[1].trimmingCharacters(in: .whitespaces)) ?? 1) <= 0
            }
            if !refused { result.insert(type) }
        }
        return result
    }
}
