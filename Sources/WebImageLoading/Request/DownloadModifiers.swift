import WebImageCodecs
import Foundation

/// The request a download is about to send; a request modifier may change any part of it.
public struct ImageDownloadRequest: Sendable {
    /// Where to send it; a modifier may point it elsewhere (it must stay http(s)).
    public var url: URL
    /// The HTTP method, "GET" unless a modifier changes it.
    public var method: String
    /// The headers, in order: the downloader's defaults, validators, then the modifier's changes.
    public var headers: [HTTPHeaderField]
    /// A request body, for the rare image endpoint that wants one.
    public var body: Data?

    /// A request for `url`; by default a GET with no headers and no body.
    public init(url: URL, method: String = "GET", headers: [HTTPHeaderField] = [], body: Data? = nil) {
        self.url = url
        self.method = method
        self.headers = headers
        self.body = body
    }
}

/// Changes each request before it is sent; returning nil refuses the download
/// (``WebImageError/Code/invalidDownloadOperation``).
public struct DownloadRequestModifier: Sendable {
    /// Returns the request to send, or nil to refuse the download.
    public let modify: @Sendable (ImageDownloadRequest) -> ImageDownloadRequest?

    /// A modifier that runs `modify` on each request.
    public init(_ modify: @escaping @Sendable (ImageDownloadRequest) -> ImageDownloadRequest?) {
        self.modify = modify
    }

    /// Sets `method` (nil keeps it), sets (adds or overrides) `headers`, and sets `body` if given.
    public init(method: String? = nil, headers: [String: String] = [:], body: Data? = nil) {
        self.modify = { request in
            var request = request
            if let method { request.method = method }
            for (name, value) in headers.sorted(by: { $0.key < $1.key }) { request.headers.set(name, value) }
            if let body { request.body = body }
            return request
        }
    }
}

/// The part of a response a response modifier sees and may change.
public struct ImageDownloadResponse: Sendable {
    /// The URL that answered (after redirects).
    public var url: URL
    /// The status that validation will see.
    public var statusCode: Int
    /// The headers that validation and the result will see.
    public var headers: [HTTPHeaderField]

    /// The response from `url` with `statusCode` and `headers`.
    public init(url: URL, statusCode: Int, headers: [HTTPHeaderField]) {
        self.url = url
        self.statusCode = statusCode
        self.headers = headers
    }
}

/// Changes each response before it is validated; returning nil fails the download
/// (``WebImageError/Code/invalidDownloadResponse``).
public struct DownloadResponseModifier: Sendable {
    /// Returns the response to validate, or nil to fail the download.
    public let modify: @Sendable (ImageDownloadResponse) -> ImageDownloadResponse?

    /// A modifier that runs `modify` on each response.
    public init(_ modify: @escaping @Sendable (ImageDownloadResponse) -> ImageDownloadResponse?) {
        self.modify = modify
    }

    /// Sets the status (default 200) and merges `headers` into the response's.
    public init(statusCode: Int = 200, headers: [String: String] = [:]) {
        self.modify = { response in
            var response = response
            response.statusCode = statusCode
            for (name, value) in headers.sorted(by: { $0.key < $1.key }) { response.headers.set(name, value) }
            return response
        }
    }
}

/// Transforms the downloaded bytes before decoding; returning nil fails the download with
/// ``WebImageError/Code/badImageData``. A decryptor turns off progressive decoding.
public struct DownloadDecryptor: Sendable {
    /// Returns the bytes to decode, or nil to fail the download.
    public let decrypt: @Sendable (Data, ImageResponseInfo?) -> Data?

    /// A decryptor that runs `decrypt` on each complete body, with the response when there was one.
    public init(_ decrypt: @escaping @Sendable (Data, ImageResponseInfo?) -> Data?) {
        self.decrypt = decrypt
    }

    /// Treats the body as base64 text, ignoring characters outside the base64 alphabet.
    public static let base64 = DownloadDecryptor { data, _ in
        let alphabet = data.filter { byte in
            (0x41...0x5A).contains(byte) || (0x61...0x7A).contains(byte) || (0x30...0x39).contains(byte)
                || byte == 0x2B || byte == 0x2F
        }
        let text = String(decoding: alphabet, as: UTF8.self)
        let padded = text + String(repeating: "=", count: (4 - text.count % 4) % 4)
        return Data(base64Encoded: padded)
    }
}
