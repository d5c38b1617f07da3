import WebImageCodecs
import Foundation

/// What a loader delivers: a partial image while data arrives, then one finished result.
public struct ImageLoadResult: Sendable {
    /// The decoded image (partial while ``isFinished`` is false); nil on error.
    public var image: Image?
    /// The bytes as received (after the decryptor); nil for partial results and most errors.
    public var data: Data?
    /// Why the load failed; nil on success and for partial results.
    public var error: WebImageError?
    /// False for a progressive partial image; true for the one final result.
    public var isFinished: Bool
    /// The HTTP response as the loader saw it, when there was one.
    public var response: ImageResponseInfo?

    /// A result with every field given; see ``failure(_:response:)`` for the common failure.
    public init(image: Image?, data: Data?, error: WebImageError?, isFinished: Bool,
                response: ImageResponseInfo? = nil) {
        self.image = image
        self.data = data
        self.error = error
        self.isFinished = isFinished
        self.response = response
    }

    /// A finished failure.
    public static func failure(_ error: WebImageError, response: ImageResponseInfo? = nil) -> ImageLoadResult {
        ImageLoadResult(image: nil, data: nil, error: error, isFinished: true, response: response)
    }
}

/// Cache validators: what a server said identifies this version of the resource.
public struct HTTPValidators: Sendable, Hashable, Codable {
    /// The ETag header, quotes included, sent back as If-None-Match.
    public var etag: String?
    /// The Last-Modified header, sent back verbatim as If-Modified-Since.
    public var lastModified: String?

    /// How long the stored copy may be used without a request, kept beside the validators (read
    /// with ``WebImageOptions/refreshCached`` and ``WebImageOptions/respectsHTTPFreshness``).
    public var freshness: HTTPFreshness?

    /// Validators from a response's `ETag` and `Last-Modified` headers, and its freshness.
    public init(etag: String? = nil, lastModified: String? = nil, freshness: HTTPFreshness? = nil) {
        self.etag = etag
        self.lastModified = lastModified
        self.freshness = freshness
    }

    /// True when nothing is known: no validator and no freshness.
    public var isEmpty: Bool { etag == nil && lastModified == nil && freshness == nil }

    /// The validators a conditional request sends (no freshness), or nil when there are none.
    public var conditional: HTTPValidators? {
        etag == nil && lastModified == nil ? nil : HTTPValidators(etag: etag, lastModified: lastModified)
    }
}

/// One HTTP header line.
public struct HTTPHeaderField: Sendable, Hashable {
    /// The header name as sent (compare case-insensitively).
    public var name: String
    /// The header value.
    public var value: String

    /// A header `name: value`.
    public init(name: String, value: String) {
        self.name = name
        self.value = value
    }
}

extension Array where Element == HTTPHeaderField {
    /// The first value of header `name`, compared case-insensitively (ASCII, as field names are).
    public subscript(header name: String) -> String? {
        first { HTTPHeaderName.matches($0.name, name) }?.value
    }

    /// Replaces every `name` header with one `value`, or removes them when `value` is nil.
    public mutating func set(_ name: String, _ value: String?) {
        removeAll { HTTPHeaderName.matches($0.name, name) }
        if let value { append(HTTPHeaderField(name: name, value: value)) }
    }
}

/// The response behind a load: final URL, status, headers, validators and timings.
public struct ImageResponseInfo: Sendable {
    /// The URL that answered (after redirects).
    public var url: URL
    /// The HTTP status; 0 for non-HTTP sources (file:, data:).
    public var statusCode: Int
    /// The response headers, in order.
    public var headers: [HTTPHeaderField]
    /// The Content-Length, or nil when the server did not send one.
    public var expectedContentLength: Int64?
    /// Timings and sizes for this download, when measured.
    public var metrics: DownloadMetrics?

    /// The response from `url`; 0 as `statusCode` for non-HTTP sources.
    public init(url: URL, statusCode: Int, headers: [HTTPHeaderField] = [],
                expectedContentLength: Int64? = nil, metrics: DownloadMetrics? = nil) {
        self.url = url
        self.statusCode = statusCode
        self.headers = headers
        self.expectedContentLength = expectedContentLength
        self.metrics = metrics
    }

    /// The Content-Type header.
    public var contentType: String? { headers[header: "Content-Type"] }

    /// The MIME type: the Content-Type without parameters, lowercased.
    public var mimeType: String? {
        contentType.map { $0.split(separator: ";", maxSplits: 1)[0].trimmingCharacters(in: .whitespaces).lowercased() }
    }

    /// The ETag and Last-Modified this response carried.
    public var validators: HTTPValidators {
        HTTPValidators(etag: headers[header: "ETag"], lastModified: headers[header: "Last-Modified"])
    }
}
