import Foundation

/// The one error type the library throws or reports, with SDWebImage's numeric codes.
///
/// Codes 1000–2004 mean what they mean in SDWebImage; the rest cover what it lacks. Every error
/// carries a message a person can act on, plus the URL, HTTP status and content type where known.
public struct WebImageError: Error, Sendable, CustomStringConvertible {
    /// What went wrong, as a stable number and name.
    public enum Code: Int, Sendable, CaseIterable, Codable {
        /// The URL is nil, empty or not one the loaders understand.
        case invalidURL = 1000
        /// The data is empty, corrupt, truncated or not an image any coder can decode.
        case badImageData = 1001
        /// The server answered 304: the cached copy is still current.
        case cacheNotModified = 1002
        /// The URL failed before and is on the failed-URL list.
        case blackListed = 1003
        /// The image's decoded size passes the decode limit and could not be scaled down.
        case imageTooLarge = 1004
        /// The image format is recognised but no coder can decode or encode it.
        case unsupportedFormat = 1005
        /// Encoding an image failed.
        case encodingFailed = 1006
        /// The download could not be started (a request modifier returned nil, or the client is shut down).
        case invalidDownloadOperation = 2000
        /// The HTTP status is not an acceptable one.
        case invalidDownloadStatusCode = 2001
        /// The caller cancelled.
        case cancelled = 2002
        /// A response modifier rejected the response.
        case invalidDownloadResponse = 2003
        /// The response's content type is not an acceptable one.
        case invalidDownloadContentType = 2004
        /// The response is larger than the configured maximum.
        case responseTooLarge = 2005
        /// More redirects than the configured maximum, or a redirect loop.
        case tooManyRedirects = 2006
        /// No progress within the timeout (connect, or an idle body).
        case timedOut = 2007
        /// The connection could not be made, was refused, reset or closed early.
        case connectionFailed = 2008
        /// A TLS handshake or certificate check failed.
        case tlsFailure = 2009
        /// The safe-fetch guard (`DownloaderConfig.addressPolicy`) refused to connect: the host
        /// is, or resolves to, a loopback, private, link-local or other non-public address. Never
        /// blocks the URL and is never retried.
        case forbiddenAddress = 2010
        /// The URL — the first request's or a redirect hop's — is not under the downloader's
        /// `DownloaderConfig.sourceAllowList`. Never blocks the URL and is never retried.
        case sourceNotAllowed = 2011
        /// A cache read or write failed (unwritable, vanished or full directory).
        case cacheFailure = 3000
        /// The image is not cached and the request may not load it (`fromCacheOnly`, or the
        /// manager's delegate declined the download). Only the async API reports it; the
        /// completion API reports no image and no error, as SDWebImage does.
        case notCached = 3001

        /// The lowerCamelCase name, as in JSON output: `badImageData`, `cancelled`, …
        public var name: String {
            switch self {
            case .invalidURL: "invalidURL"
            case .badImageData: "badImageData"
            case .cacheNotModified: "cacheNotModified"
            case .blackListed: "blackListed"
            case .imageTooLarge: "imageTooLarge"
            case .unsupportedFormat: "unsupportedFormat"
            case .encodingFailed: "encodingFailed"
            case .invalidDownloadOperation: "invalidDownloadOperation"
            case .invalidDownloadStatusCode: "invalidDownloadStatusCode"
            case .cancelled: "cancelled"
            case .invalidDownloadResponse: "invalidDownloadResponse"
            case .invalidDownloadContentType: "invalidDownloadContentType"
            case .responseTooLarge: "responseTooLarge"
            case .tooManyRedirects: "tooManyRedirects"
            case .timedOut: "timedOut"
            case .connectionFailed: "connectionFailed"
            case .tlsFailure: "tlsFailure"
            case .forbiddenAddress: "forbiddenAddress"
            case .sourceNotAllowed: "sourceNotAllowed"
            case .cacheFailure: "cacheFailure"
            case .notCached: "notCached"
            }
        }
    }

    /// What went wrong.
    public let code: Code
    /// A sentence saying what happened and, where possible, what to do about it.
    public let message: String
    /// The URL being loaded, when there was one.
    public var url: URL?
    /// The HTTP status of the response, when one arrived.
    public var httpStatus: Int?
    /// The response's Content-Type, when one arrived.
    public var contentType: String?
    /// The lower-level error behind this one, if any.
    public var underlying: (any Error & Sendable)?
    /// The start of the body of a response refused for its status, when the request asked to keep
    /// it (`WebImageContext.errorBodyLimit`): what an origin such as S3 says went wrong.
    public var responseBody: Data?

    /// An error with `code` and a `message` a person can act on, plus what is known about the load.
    public init(_ code: Code, _ message: String, url: URL? = nil, httpStatus: Int? = nil,
                contentType: String? = nil, underlying: (any Error & Sendable)? = nil) {
        self.code = code
        self.message = message
        self.url = url
        self.httpStatus = httpStatus
        self.contentType = contentType
        self.underlying = underlying
    }

    /// `name (code): message [url]`, for logs and messages shown to people.
    public var description: String {
        var text = "\(code.name) (\(code.rawValue)): \(message)"
        if let url { text += " [\(url.absoluteString)]" }
        return text
    }

    /// Shorthand for a ``Code/badImageData`` error.
    static func badData(_ message: String) -> WebImageError { WebImageError(.badImageData, message) }
}

extension WebImageError: LocalizedError {
    /// The same text as ``description``, for `localizedDescription`.
    public var errorDescription: String? { description }
}
