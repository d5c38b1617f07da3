import WebImageCodecs

/// Writes and checks the signed part of an ``ImageServerURL``.
enum ImageServerPathWriter {
    /// Characters an option name may hold.
    private static let nameCharacters = Set("abcdefghijklmnopqrstuvwxyz0123456789_-".utf8)
    /// Characters an option argument may hold: a path's unreserved and sub-delimiter characters,
    /// without `:` and `/` (the separators) and `%` (the server would read it as an escape).
    private static let argumentCharacters =
        Set("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~!$&'()*+,;=".utf8)
    /// Characters a plain source keeps as they are; every other byte is percent-encoded.
    private static let plainSourceCharacters =
        Set("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~!$&'()*+,;=:/".utf8)
    private static let extensionCharacters = Set("abcdefghijklmnopqrstuvwxyz0123456789".utf8)

    static func check(_ option: ImageServerURL.Option) throws {
        guard !option.name.isEmpty, option.name.utf8.count <= 64, option.name.utf8.allSatisfy(nameCharacters.contains) else {
            throw WebImageError(.invalidURL, "Option name \"\(option.name)\" must be 1–64 of a-z 0-9 _ -.")
        }
        for argument in option.arguments where !argument.utf8.allSatisfy(argumentCharacters.contains) {
            throw WebImageError(.invalidURL, "Argument \"\(argument)\" of option \(option.name) holds a character "
                + "an option cannot carry (\":\", \"/\", \"%\", \"?\", \"#\", \"@\", a space or non-ASCII).")
        }
    }

    static func path(for url: ImageServerURL) throws -> String {
        guard !url.source.isEmpty else { throw WebImageError(.invalidURL, "The source URL is empty.") }
        var path = ""
        for option in url.options {
            try check(option)
            path += "/" + ([option.name] + option.arguments).joined(separator: ":")
        }
        if let ext = url.fileExtension {
            guard (1...8).contains(ext.utf8.count), ext.utf8.allSatisfy(extensionCharacters.contains) else {
                throw WebImageError(.invalidURL, "Extension \"\(ext)\" must be 1–8 of a-z 0-9.")
            }
        }
        switch url.sourceEncoding {
        case .plain:
            path += "/plain/" + percentEncoded(url.source)
            if let ext = url.fileExtension { path += "@" + ext }
        case .base64(let chunkLength):
            let encoded = Array(ImageServerBase64.encode(Array(url.source.utf8)).utf8)
            let chunk = chunkLength ?? encoded.count
            guard (1...1024).contains(chunk) else {
                throw WebImageError(.invalidURL, "A base64 chunk length is 1–1024; got \(chunk).")
            }
            var start = 0
            while start < encoded.count {
                let end = min(encoded.count, start + chunk)
                path += "/" + String(decoding: encoded[start..<end], as: UTF8.self)
                start = end
            }
            if let ext = url.fileExtension { path += "." + ext }
        }
        return path
    }

    /// `source` with every byte outside ``plainSourceCharacters`` written as `%XX`.
    static func percentEncoded(_ source: String) -> String {
        let hex = Array("0123456789ABCDEF".utf8)
        var out: [UInt8] = []
        out.reserveCapacity(source.utf8.count)
        for byte in source.utf8 {
            if plainSourceCharacters.contains(byte) {
                out.append(byte)
            } else {
                out += [UInt8(ascii: "%"), hex[Int(byte >> 4)], hex[Int(byte & 15)]]
            }
        }
        return String(decoding: out, as: UTF8.self)
    }
}
