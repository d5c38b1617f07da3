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

    public init(status: Int, name: String, message: String, retryAfter: Int? = nil) {
        self.status = status
        self.name = name
        self.message = message
        self.retryAfter = retryAfter
    }

    /// The JSON body.
    public var body: Data {
        let object: [String: Any] = ["error": ["code": status, "name": name, "message": message]]
        return (try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys])) ?? Data()
    }

    static func badRequest(_ name: String, _ message: String) -> ServerError {
        ServerError(status: 400, name: name, message: message)
    }

    static let queueFull = ServerError(status: 429, name: "too_many_requests",
                                       message: "The server is busy: too many requests are waiting.", retryAfter: 1)
    static func requestTimeout(_ seconds: Double) -> ServerError {
        ServerError(status: 504, name: "timeout",
                    message: "The request took longer than \(String(format: "%g", seconds)) s.")
    }

    static let shuttingDown = ServerError(status: 503, name: "shutting_down",
                                          message: "The server is shutting down.", retryAfter: 5)

    /// How a failure of the library's fetch, decode or encode is answered (imgproxy's statuses:
    /// the source's 404 as 404, its other failures as 502, a timeout as 504, a bad image as 422).
    init(_ error: WebImageError, source: String) {
        switch error.code {
        case .forbiddenAddress:
            self.init(status: 403, name: "source_forbidden",
                      message: "The source \(source) resolves to an address this server may not fetch: \(error.message)")
        case .sourceNotAllowed:
            self.init(status: 403, name: "source_not_allowed", message: "The source \(source) is not allowed: \(error.message)")
        case .invalidDownloadStatusCode where error.httpStatus == 404 || error.httpStatus == 410:
            self.init(status: 404, name: "source_not_found", message: "The source \(source) was not found (HTTP \(error.httpStatus!)).")
        case .invalidDownloadStatusCode, .invalidDownloadResponse, .connectionFailed, .tlsFailure, .tooManyRedirects,
             .invalidDownloadOperation:
            self.init(status: 502, name: "source_unreachable", message: "The source \(source) could not be fetched: \(error.message)")
        case .timedOut:
            self.init(status: 504, name: "source_timeout", message: "The source \(source) did not answer in time.")
        case .responseTooLarge:
            self.init(status: 413, name: "source_too_large", message: error.message)
        case .imageTooLarge:
            self.init(status: 422, name: "source_over_limits", message: error.message)
        case .badImageData, .invalidDownloadContentType, .unsupportedFormat:
            self.init(status: 422, name: "source_not_an_image", message: "The source \(source) is not an image this server decodes: \(error.message)")
        case .invalidURL:
            self.init(status: 400, name: "invalid_source", message: error.message)
        case .encodingFailed:
            self.init(status: 422, name: "encoding_failed", message: error.message)
        case .cancelled:
            self.init(status: 499, name: "cancelled", message: "The request was cancelled.")
        default:
            self.init(status: 500, name: "internal_error", message: error.message)
        }
    }
}
