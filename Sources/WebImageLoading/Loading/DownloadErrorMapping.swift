import WebImageCodecs
import AsyncHTTPClient
import Foundation
import NIOCore

/// Turns what the HTTP client and SwiftNIO throw into ``WebImageError`` with the URL attached.
enum DownloadErrorMapping {
    /// The ``WebImageError`` for `error`, thrown while downloading `url` with these timeouts (for
    /// the message).
    static func map(_ error: any Error, url: URL, timeout: TimeInterval, connectTimeout: TimeInterval) -> WebImageError {
        if var error = error as? WebImageError {
            if error.url == nil { error.url = url }
            return error
        }
        if error is CancellationError {
            return WebImageError(.cancelled, "The download was cancelled.", url: url)
        }
        if let client = error as? HTTPClientError {
            return map(client, url: url, timeout: timeout, connectTimeout: connectTimeout)
        }
        if let channel = error as? ChannelError {
            switch channel {
            case .connectTimeout:
                return timedOut(url, connectTimeout, phase: "connecting", underlying: error)
            default:
                return WebImageError(.connectionFailed, "The connection failed: \(channel).", url: url, underlying: error)
            }
        }
        if error is IOError {
            return WebImageError(.connectionFailed, "The connection failed: \(error).", url: url, underlying: error)
        }
        let typeName = String(reflecting: type(of: error))
        if typeName.contains("NIOSSL") || typeName.contains("TLS") || typeName.contains("Certificate") {
            return WebImageError(.tlsFailure, "The TLS handshake or certificate check failed: \(error).",
                                 url: url, underlying: error)
        }
        if typeName.contains("NIOConnectionError") {
            let host = url.host.map { " \"\($0)\"" } ?? ""
            let message = isNameResolutionFailure(error)
                ? "The host name\(host) could not be resolved (DNS)."
                : "The server could not be reached."
            return WebImageError(.connectionFailed, "\(message) (\(error))", url: url, underlying: error)
        }
        if typeName.contains("HTTPParserError") {
            return WebImageError(.connectionFailed, "The server sent a malformed or truncated response: \(error).",
                                 url: url, underlying: error)
        }
        return WebImageError(.connectionFailed, "The download failed: \(error).", url: url, underlying: error)
    }

    private static func map(_ error: HTTPClientError, url: URL, timeout: TimeInterval,
                            connectTimeout: TimeInterval) -> WebImageError {
        switch error {
        case .connectTimeout, .tlsHandshakeTimeout, .getConnectionFromPoolTimeout:
            return timedOut(url, connectTimeout, phase: "connecting", underlying: error)
        case .readTimeout:
            return timedOut(url, timeout, phase: "waiting for data", underlying: error)
        case .deadlineExceeded, .writeTimeout:
            return timedOut(url, timeout, phase: "sending the request", underlying: error)
        case .cancelled:
            return WebImageError(.cancelled, "The download was cancelled.", url: url, underlying: error)
        case .remoteConnectionClosed:
            return WebImageError(.connectionFailed, "The server closed the connection before the response was complete.",
                                 url: url, underlying: error)
        case .alreadyShutdown:
            return WebImageError(.invalidDownloadOperation, "The downloader has been shut down.", url: url,
                                 underlying: error)
        case .invalidURL, .emptyHost, .emptyScheme:
            return WebImageError(.invalidURL, "The URL cannot be requested: \(error).", url: url, underlying: error)
        default:
            if String(describing: error).contains("unsupportedScheme") {
                return WebImageError(.invalidURL, "The URL's scheme is not HTTP(S).", url: url, underlying: error)
            }
            return WebImageError(.connectionFailed, "The download failed: \(error).", url: url, underlying: error)
        }
    }

    /// Whether NIOPosix's `NIOConnectionError` says the A or AAAA lookup failed. Read from its
    /// `dnsAError` / `dnsAAAAError` fields (NIOPosix is not imported here), falling back on its
    /// description, which begins "DNS error" for the same case.
    private static func isNameResolutionFailure(_ error: any Error) -> Bool {
        let lookups = Mirror(reflecting: error).children.filter { $0.label == "dnsAError" || $0.label == "dnsAAAAError" }
        if !lookups.isEmpty { return lookups.contains { !isNil($0.value) } }
        return String(describing: error).hasPrefix("DNS error")
    }

    /// True for an `Optional.none` boxed in `Any`.
    private static func isNil(_ value: Any) -> Bool {
        let mirror = Mirror(reflecting: value)
        return mirror.displayStyle == .optional && mirror.children.isEmpty
    }

    private static func timedOut(_ url: URL, _ timeout: TimeInterval, phase: String,
                                 underlying: any Error) -> WebImageError {
        WebImageError(.timedOut, "No progress for \(timeout) s while \(phase); the server is slow or unreachable.",
                      url: url, underlying: underlying)
    }
}
