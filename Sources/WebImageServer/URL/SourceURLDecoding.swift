import WebImage

/// The source URL at the end of an imgproxy path, in either form: `plain/` + percent-encoded URL
/// with an optional `@extension`, or base64url (split by `/` anywhere, padding optional) with an
/// optional `.extension`.
enum SourceURL {
    /// The source and the extension (nil when none is given) spelled by `segments`, the path's
    /// segments after the options.
    static func decode(_ segments: ArraySlice<Substring>) throws(ImageURLError) -> (source: String, extension: String?) {
        guard let first = segments.first else { throw .invalidURL("The URL has no source after its options.") }
        if first == "plain", segments.count > 1 {
            return try decodePlain(segments.dropFirst().joined(separator: "/"))
        }
        return try decodeBase64(segments.joined())
    }

    private static func decodePlain(_ joined: String) throws(ImageURLError) -> (source: String, extension: String?) {
        let parts = joined.split(separator: "@", omittingEmptySubsequences: false)
        guard parts.count <= 2 else {
            throw .invalidURL("The plain source has more than one \"@\": encode an \"@\" in the URL as %40.")
        }
        guard !parts[0].isEmpty else { throw .invalidURL("The plain source URL is empty.") }
        guard let source = percentDecoded(parts[0]) else {
            throw .invalidURL("The plain source URL has a malformed %-escape or is not UTF-8: \(parts[0])")
        }
        return (source, parts.count == 2 && !parts[1].isEmpty ? String(parts[1]) : nil)
    }

    private static func decodeBase64(_ joined: String) throws(ImageURLError) -> (source: String, extension: String?) {
        let parts = joined.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count <= 2 else { throw .invalidURL("The base64 source has more than one \".\" extension.") }
        guard !parts[0].isEmpty else { throw .invalidURL("The base64 source URL is empty.") }
        var encoded = parts[0]
        while encoded.last == "=" { encoded.removeLast() }
        guard let bytes = Base64URL.decode(encoded), let source = String(validating: bytes, as: UTF8.self) else {
            throw .invalidURL("The source \"\(parts[0])\" is not URL-safe base64 of a UTF-8 URL.")
        }
        return (source, parts.count == 2 && !parts[1].isEmpty ? String(parts[1]) : nil)
    }

    /// `text` with every `%XX` decoded (`+` stays `+`, as Go's `url.PathUnescape`), or nil when a `%`
    /// is not followed by two hex digits or the bytes are not UTF-8.
    static func percentDecoded(_ text: some StringProtocol) -> String? {
        let utf8 = Array(text.utf8)
        guard utf8.contains(UInt8(ascii: "%")) else { return String(text) }
        var bytes = [UInt8]()
        bytes.reserveCapacity(utf8.count)
        var index = 0
        while index < utf8.count {
            if utf8[index] == UInt8(ascii: "%") {
                guard index + 2 < utf8.count, let high = HexDigit.value(utf8[index + 1]),
                      let low = HexDigit.value(utf8[index + 2]) else { return nil }
                bytes.append(high << 4 | low)
                index += 3
            } else {
                bytes.append(utf8[index])
                index += 1
            }
        }
        return String(validating: bytes, as: UTF8.self)
    }
}
