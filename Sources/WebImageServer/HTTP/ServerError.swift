import Foundation
import WebImage

/// A failed request as the client sees it: an HTTP status, a stable machine name and a message,
/// sent as `{"error":{"code":…,"name":…,"message":…}}`.
public struct ServerError: Error, Sendable, Equatable {
    /// The HTTP status.
    public var status: Int
    /// A stable, machine-readable name (`invalid_signature`, `source_not_found`, …).
    public var name: String
    /// What went wrong, for a person.
    public var message: String
    /// Seconds a client should wait before trying again (429, 503).
    public var retryAfter: Int?
    /// What only the server's log shows: the underlying error, the address a host name resolved
    /// to. Never sent to the client.
    public var detail: String?

    public init(status: Int, name: String, message: String, retryAfter: Int? = nil, detail: String? = nil) {
        self.status = status
        self.name = name
        self.message = message
        self.retryAfter = retryAfter
        self.detail = detail
    }

    /// The JSON body.
    public var body: Data {
        let object: [String: Any] = ["error": ["code": status, "name": name, "message": message]]
        return (try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys])) ?? Data()
    }

    static func badRequest(_ name: String, _ message: String) -> ServerError {
        ServerError(status: 400, name: name, message: message)
    }

    /// The methods the server answers, for the `Allow` header of a 405.
    static let allowedMethods = "GET, HEAD"

    static let methodNotAllowed = ServerError(status: 405, name: "method_not_allowed",
                                              message: "Only GET and HEAD are served.")

    /// A failure of the server itself: the client learns only that, the log gets `error`.
    static func internalError(_ error: any Error) -> ServerError {
        ServerError(status: 500, name: "internal_error", message: "The server failed to make the result.",
                    detail: "\(error)")
    }

    static let tooManyConnections = ServerError(status: 503, name: "too_many_connections",
                                                message: "The server holds as many connections as it may.", retryAfter: 1)

    static let queueFull = ServerError(status: 429, name: "too_many_requests",
                                       message: "The server is busy: too many requests are waiting.", retryAfter: 1)
    static func requestTimeout(_ seconds: Double) -> ServerError {
        ServerError(status: 504, name: "timeout",
                    message: "The request took longer than \(String(format: "%g", seconds)) s.")
    }

    static let shuttingDown = ServerError(status: 503, name: "shutting_down",
                                          message: "The server is shutting down.", retryAfter: 5)

    /// What a source refused by the private-address guard is told, whichever check refused it
    /// (the address it resolved to, or why, goes to ``detail``).
    static func notPublicMessage(_ source: String) -> String {
        "The source \(source) is not on a public address; this server may not fetch it."
    }

    /// Whether `source` is an http(s) URL (its failures are told as HTTP statuses).
    static func isWebSource(_ source: String) -> Bool {
        let scheme = source.prefix { $0 != ":" }.lowercased()
        return scheme == "http" || scheme == "https"
    }

    /// How a failure of the library's fetch, decode or encode is answered (imgproxy's statuses:
    /// the source's 404 as 404, its other failures as 502, a timeout as 504, a bad image as 422).
    /// A failure to reach the source is told in the server's own words; the library's message,
    /// which can name the address a host resolved to or a library's error type, goes to
    /// ``detail``. The codecs' messages, which describe the image, are sent as they are.
    init(_ error: WebImageError, source: String) {
        let detail = error.message
        switch error.code {
        case .forbiddenAddress:
            self.init(status: 403, name: "source_forbidden",
                      message: Self.notPublicMessage(source), detail: detail)
        case .sourceNotAllowed:
            self.init(status: 403, name: "source_not_allowed",
                      message: "The source \(source) is not under a source this server is allowed to fetch.", detail: detail)
        case .invalidDownloadStatusCode where error.httpStatus == 404 || error.httpStatus == 410:
            let shown = Self.isWebSource(source) ? " (HTTP \(error.httpStatus!))" : ""
            self.init(status: 404, name: "source_not_found", message: "The source \(source) was not found\(shown).",
                      detail: detail)
        case .invalidDownloadStatusCode where error.httpStatus == 403 && source.prefix(3).lowercased() == "s3:":
            self.init(status: 403, name: "source_access_denied",
                      message: "The source \(source) may not be read: the store refused this server's credentials (HTTP 403).",
                      detail: detail)
        case .invalidDownloadStatusCode:
            let status = error.httpStatus.map { " (HTTP \($0))" } ?? ""
            self.init(status: 502, name: "source_unreachable",
                      message: "The source \(source) could not be fetched: it answered with an error\(status).", detail: detail)
        case .tooManyRedirects:
            self.init(status: 502, name: "source_unreachable",
                      message: "The source \(source) could not be fetched: too many redirects.", detail: detail)
        case .tlsFailure:
            self.init(status: 502, name: "source_unreachable",
                      message: "The source \(source) could not be fetched: the TLS handshake or certificate check failed.",
                      detail: detail)
        case .invalidDownloadResponse, .connectionFailed, .invalidDownloadOperation:
            self.init(status: 502, name: "source_unreachable", message: "The source \(source) could not be fetched.",
                      detail: detail)
        case .timedOut:
            self.init(status: 504, name: "source_timeout", message: "The source \(source) did not answer in time.",
                      detail: detail)
        case .responseTooLarge:
            self.init(status: 413, name: "source_too_large", message: error.message)
        case .imageTooLarge:
            self.init(status: 422, name: "source_over_limits", message: error.message)
        case .badImageData, .invalidDownloadContentType, .unsupportedFormat:
            self.init(status: 422, name: "source_not_an_image",
                      message: "The source \(source) is not an image this server decodes: \(error.message)")
        case .invalidURL:
            self.init(status: 400, name: "invalid_source", message: "The source \(source) cannot be requested.",
                      detail: detail)
        case .encodingFailed:
            self.init(status: 422, name: "encoding_failed", message: error.message)
        case .cancelled:
            self.init(status: 499, name: "cancelled", message: "The request was cancelled.")
        default:
            self.init(status: 500, name: "internal_error", message: "The server failed to make the result.",
                      detail: detail)
        }
    }
}
