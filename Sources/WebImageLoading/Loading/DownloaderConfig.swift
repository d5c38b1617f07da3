import WebImageCodecs
import Foundation
import Logging

/// Settings of one ``ImageDownloader``, with SDWebImage's defaults.
public struct DownloaderConfig: Sendable {
    /// The order queued downloads start in, within one priority.
    public enum ExecutionOrder: Sendable {
        /// Oldest first.
        case fifo
        /// Newest first (SDWebImage's LIFO: the newest pending request runs next).
        case lifo
    }

    /// How many downloads run at once (default 6). Changing it on a running downloader takes effect
    /// at once: more queued downloads start, or fewer start as running ones end.
    public var maxConcurrentDownloads = 6
    /// How many downloads run at once to one host and port (default 6, as browsers do), within
    /// ``maxConcurrentDownloads``. A download waiting for its host lets one for another host start.
    /// Changing it on a running downloader takes effect at once.
    public var maxConcurrentDownloadsPerHost = 6
    /// Seconds without progress before a download fails with ``WebImageError/Code/timedOut``:
    /// it covers connecting and every wait for body bytes (a stalled body times out). 0 means 15.
    /// Read when the downloader is created.
    public var downloadTimeout: TimeInterval = 15
    /// Seconds allowed for getting a connection (resolving, connecting, the TLS handshake, waiting
    /// for a pooled one); nil (default) means ``downloadTimeout``. Read when the downloader is created.
    public var connectTimeout: TimeInterval?
    /// The fraction of the expected size (0…1) that must arrive between two progress callbacks.
    public var minimumProgressInterval: Double = 0
    /// FIFO (default) or LIFO, within one priority.
    public var executionOrder: ExecutionOrder = .fifo
    /// Statuses that count as success (default 200..<300); nil accepts any status.
    public var acceptableStatusCodes: Set<Int>? = Set(200..<300)
    /// MIME types that count as success; nil (default) accepts any.
    public var acceptableContentTypes: Set<String>?
    /// User name for HTTP Basic authentication, answered when a server challenges.
    public var username: String?
    /// Password for ``username``.
    public var password: String?
    /// A credential that takes precedence over ``username``/``password``.
    public var credential: DownloadCredential?
    /// Accept any TLS certificate for every request (for testing only; default false).
    /// The `.allowInvalidSSLCertificates` option does the same per request.
    public var allowInvalidSSLCertificates = false
    /// Bodies larger than this fail with ``WebImageError/Code/responseTooLarge``, checked from
    /// Content-Length before reading and while streaming.
    public var maximumResponseSize = DownloaderConfig.defaultMaximumResponseSize
    /// Redirects followed before ``WebImageError/Code/tooManyRedirects`` (default 10).
    public var maximumRedirects = 10
    /// Keep retrying a connection that could not be made (refused, unreachable) with backoff until
    /// the timeout, instead of failing at once. Off by default: a refused connection fails in
    /// milliseconds with `connectionFailed`, as URLSession does.
    public var retriesFailedConnections = false
    /// How fast requests may start (a token bucket); nil (the default) starts them as soon as there
    /// is room. Changing it on a running downloader applies from the next start.
    public var rateLimit: RequestRateLimit?
    /// Bytes of bodies cut short (a failure or a cancel) kept in memory to resume: the next attempt
    /// or load of the URL asks for the rest with `Range` and `If-Range`. Only responses with
    /// `Accept-Ranges: bytes` and a strong ETag or a Last-Modified are kept; the least recently
    /// kept go first. Default 32 MiB; 0 keeps nothing. Read when the downloader is created.
    public var resumableDataBudget = 32 << 20
    /// When a failed download is tried again, unless the context has its own strategy. Nil (the
    /// default) never retries, as SDWebImage.
    public var retryStrategy: RetryStrategy?
    /// The clock retry waits and the rate limit are measured on. Tests pass a clock they advance by hand.
    public var clock: any Clock<Duration> = ContinuousClock()
    /// The safe-fetch guard, for a server that fetches URLs it is given: with a policy, every
    /// connection — the first request's and each redirect hop's — goes only to addresses the
    /// policy allows, and a refused one fails with ``WebImageError/Code/forbiddenAddress`` (never
    /// retried, never blocking the URL). Nil (the default) connects anywhere. A host name is
    /// resolved by ``hostResolver`` and every address of the answer is checked; connections then go
    /// to a checked address, never through another lookup, so a name server cannot switch them to
    /// another one (DNS rebinding). ``RestrictedRange`` lists what is refused. Read when the
    /// downloader is created.
    public var addressPolicy: AddressPolicy?
    /// The URLs this downloader may request, for a server that fetches URLs it is given: with a
    /// list, the first request's URL and every redirect hop's must be under one of its prefixes,
    /// compared by scheme, host, port and path (see ``SourceAllowList``); a URL outside it fails
    /// with ``WebImageError/Code/sourceNotAllowed`` before anything connects. Nil (the default)
    /// admits every URL.
    public var sourceAllowList: SourceAllowList?
    /// How the safe-fetch guard resolves host names (used only with ``addressPolicy``); the
    /// system resolver by default. Read when the downloader is created.
    public var hostResolver: any HostResolving = SystemHostResolver()
    /// Applied to every request unless the context has its own.
    public var requestModifier: DownloadRequestModifier?
    /// Applied to every response unless the context has its own.
    public var responseModifier: DownloadResponseModifier?
    /// Applied to every body unless the context has its own.
    public var decryptor: DownloadDecryptor?
    /// Where the downloader logs; silent by default.
    public var logger = Logger(label: "WebImage.ImageDownloader", factory: { _ in SwiftLogNoOpLogHandler() })

    /// The default configuration; change the fields you need.
    public init() {}

    /// The default configuration.
    public static var `default`: DownloaderConfig { DownloaderConfig() }

    /// min(200 MB, 10 % of physical memory): large enough for any real image, small enough that a
    /// hostile server cannot exhaust memory.
    public static let defaultMaximumResponseSize: Int = {
        let tenth = ProcessInfo.processInfo.physicalMemory / 10
        return Int(min(UInt64(200_000_000), max(tenth, 1_000_000)))
    }()

    /// The timeout actually used: 0, negative or NaN means 15 s; at most ``longestTimeout``.
    var effectiveTimeout: TimeInterval { Self.bounded(downloadTimeout) }

    /// The connect timeout actually used: ``connectTimeout`` bounded as ``effectiveTimeout`` is,
    /// or the download timeout.
    var effectiveConnectTimeout: TimeInterval { connectTimeout.map(Self.bounded) ?? effectiveTimeout }

    /// The longest timeout taken (a million seconds): larger ones, infinity included, are cut to
    /// it, so a timeout's nanoseconds always fit the event loop's 64-bit count.
    static let longestTimeout: TimeInterval = 1_000_000

    private static func bounded(_ seconds: TimeInterval) -> TimeInterval {
        seconds > 0 ? min(seconds, longestTimeout) : 15
    }

    /// The progress interval clamped to 0…1.
    var effectiveProgressInterval: Double { min(max(minimumProgressInterval, 0), 1) }

    /// The Basic credential to answer a challenge with, if any.
    var basicCredential: DownloadCredential? {
        if let credential { return credential }
        guard let username, let password else { return nil }
        return DownloadCredential(user: username, password: password)
    }
}

/// A user name and password for HTTP Basic authentication.
public struct DownloadCredential: Sendable, Hashable {
    /// The user name.
    public var user: String
    /// The password.
    public var password: String

    /// A Basic credential for `user` and `password`.
    public init(user: String, password: String) {
        self.user = user
        self.password = password
    }

    /// The `Authorization` header value.
    var authorizationHeader: String {
        "Basic " + Data("\(user):\(password)".utf8).base64EncodedString()
    }
}
