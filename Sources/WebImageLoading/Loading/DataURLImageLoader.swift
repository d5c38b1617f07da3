import WebImageCodecs
import Foundation

/// Loads `data:` URLs (RFC 2397): base64 (`;base64,`) or percent-encoded payloads.
public struct DataURLImageLoader: ImageLoading {
    /// A `data:` URL loader; stateless.
    public init() {}

    /// True for `data:` URLs.
    public func canRequest(_ url: URL) -> Bool { url.scheme?.lowercased() == "data" }

    /// Decodes the URL's base64 or percent-encoded payload with the request's coder and options.
    @discardableResult
    public func requestImage(with url: URL, options: WebImageOptions, context: WebImageContext,
                             progress: ImageLoadProgress?,
                             completion: @escaping ImageLoadCompletion) -> (any ImageLoadCancellable)? {
        guard canRequest(url) else {
            completion(.failure(WebImageError(.invalidURL, "Not a data: URL.", url: url)))
            return nil
        }
        let token = LocalLoadToken(url: url, completion: completion)
        let decodeOptions = LoaderDecoding.decodeOptions(url: url, options: options, context: context)
        let coder = LoaderDecoding.coder(for: context, options: options)
        token.start {
            progress?(0, -1, url)
            guard let payload = DataURL.parse(url.absoluteString) else {
                return .failure(WebImageError(.invalidURL,
                    "The data: URL is malformed (expected data:[<type>][;base64],<payload>).", url: url))
            }
            let count = Int64(payload.data.count)
            progress?(count, count, url)
            let response = ImageResponseInfo(url: url, statusCode: 0,
                                             headers: [HTTPHeaderField(name: "Content-Type", value: payload.mediaType)],
                                             expectedContentLength: count)
            switch LoaderDecoding.decode(payload.data, url: url, coder: coder, options: decodeOptions) {
            case .success(let image):
                return ImageLoadResult(image: image, data: payload.data, error: nil, isFinished: true, response: response)
            case .failure(let error):
                return .failure(error, response: response)
            }
        }
        return token
    }
}

/// A parsed `data:` URL.
struct DataURL: Equatable {
    /// The media type, `text/plain;charset=US-ASCII` when the URL names none.
    var mediaType: String
    var data: Data

    /// Parses `string`; nil when it is not a data URL or its base64 is invalid.
    static func parse(_ string: String) -> DataURL? {
        guard string.count >= 5, string.prefix(5).lowercased() == "data:",
              let comma = string.firstIndex(of: ",") else { return nil }
        let header = string[string.index(string.startIndex, offsetBy: 5)..<comma]
        let payload = String(string[string.index(after: comma)...])
        var parameters = header.split(separator: ";", omittingEmptySubsequences: false).map(String.init)
        let isBase64 = parameters.last?.lowercased() == "base64"
        if isBase64 { parameters.removeLast() }
        var mediaType = parameters.joined(separator: ";")
        if mediaType.isEmpty || mediaType.hasPrefix(";") { mediaType = "text/plain" + mediaType }
        if mediaType == "text/plain" { mediaType += ";charset=US-ASCII" }
        guard let decoded = percentDecoded(payload) else { return nil }
        if isBase64 {
            let cleaned = String(decoding: decoded.filter { !Self.isWhitespace($0) }, as: UTF8.self)
            let padded = cleaned + String(repeating: "=", count: (4 - cleaned.count % 4) % 4)
            guard let data = Data(base64Encoded: padded) else { return nil }
            return DataURL(mediaType: mediaType, data: data)
        }
        return DataURL(mediaType: mediaType, data: decoded)
    }

    private static func isWhitespace(_ byte: UInt8) -> Bool {
        byte == 0x20 || byte == 0x09 || byte == 0x0A || byte == 0x0D
    }

    /// Decodes `%XX` escapes into raw bytes (not necessarily UTF-8); nil on a broken escape.
    private static func percentDecoded(_ string: String) -> Data? {
        var out = Data()
        out.reserveCapacity(string.utf8.count)
        var iterator = string.utf8.makeIterator()
        while let byte = iterator.next() {
            guard byte == UInt8(ascii: "%") else {
                out.append(byte)
                continue
            }
            guard let high = iterator.next().flatMap(HexDigit.value), let low = iterator.next().flatMap(HexDigit.value) else {
                return nil
            }
            out.append(high << 4 | low)
        }
        return out
    }

}
