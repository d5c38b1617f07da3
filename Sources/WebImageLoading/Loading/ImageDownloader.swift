import WebImageCodecs
import AsyncHTTPClient
import Foundation
import NIOCore
import Synchronization

/// Downloads images over HTTP(S) on one AsyncHTTPClient, SDWebImage's `SDWebImageDownloader`:
/// one request per URL in flight shared by the callers that can share it, a bounded priority
/// queue, progress and progressive images, conditional requests and SDWebImage's error codes.
///
/// ## Sharing a download
/// Callers of one URL share one request, and the first caller's request, headers, modifiers and
/// decryptor win (SDWebImage's rule); each caller still gets its own decode options. A caller
/// with other validators (``WebImageContext/validators``) or other certificate verification
/// (``WebImageOptions/allowInvalidSSLCertificates``) gets a download of its own instead: a 304
/// answers only the conditional caller, and a verifying caller never receives unverified bytes.
///
/// ## Shutting down
/// Call ``shutdown()`` when done with a downloader you created (the shared one lives forever).
/// The HTTP client underneath must be shut down before it is released: a downloader released
/// without ``shutdown()`` stops the process in debug builds (AsyncHTTPClient's "Client not shut
/// down before the deinit" precondition) and leaks its connections in release builds.
public final class ImageDownloader: ImageLoading {
    /// The downloader the library uses by default.
    public static let shared = ImageDownloader()

    private let client: HTTPClient
    private let queue: DownloadQueue
    private let fetcher: HTTPFetcher
    private let settings: Mutex<Settings>
    private let handlerIDs = Atomic<UInt64>(0)
    /// The safe-fetch guard's clients, when ``DownloaderConfig/addressPolicy`` is set.
    let guarded: GuardedClients?

    struct Settings {
        var config: DownloaderConfig
        var headers: [HTTPHeaderField]
        var isShutDown = false
    }

    /// The cookies sent and stored for requests with `.handleCookies`.
    public let cookieJar = CookieJar()

    /// A downloader with `config`; it owns an HTTP client on the shared event loops.
    public init(config: DownloaderConfig = .default) {
        let timeout = TimeAmount.milliseconds(Int64(config.effectiveTimeout * 1000))
        let connectTimeout = TimeAmount.milliseconds(Int64(config.effectiveConnectTimeout * 1000))
        // The queue bounds concurrency (and may be raised later), so the pool must not be the bottleneck.
        let perHost = max(128, config.maxConcurrentDownloads, config.maxConcurrentDownloadsPerHost)
        var clientConfig = HTTPClient.Configuration(
            redirectConfiguration: .disallow,
            timeout: .init(connect: connectTimeout, read: timeout),
            connectionPool: .init(idleTimeout: .seconds(60), concurrentHTTP1ConnectionsPerHostSoftLimit: perHost))
        clientConfig.connectionPool.retryConnectionEstablishment = config.retriesFailedConnections
        if config.allowInvalidSSLCertificates {
            clientConfig.tlsConfiguration = .makeClientConfiguration()
            clientConfig.tlsConfiguration?.certificateVerification = .none
        }
        let client = HTTPClient(eventLoopGroupProvider: .shared(HTTPClient.defaultEventLoopGroup),
                                configuration: clientConfig)
        self.client = client
        guarded = config.addressPolicy.map { policy in
            GuardedClients(policy: policy, resolver: config.hostResolver, configuration: clientConfig,
                           direct: client, group: HTTPClient.defaultEventLoopGroup, clock: config.clock,
                           logger: config.logger)
        }
        queue = DownloadQueue(maxConcurrent: config.maxConcurrentDownloads,
                              maxPerHost: config.maxConcurrentDownloadsPerHost, order: config.executionOrder)
        queue.setRateLimit(config.rateLimit, clock: config.clock)
        fetcher = HTTPFetcher(client: client, cookieJar: cookieJar,
                              resumables: ResumableDataStore(budget: config.resumableDataBudget), guarded: guarded,
                              logger: config.logger)
        settings = Mutex(Settings(config: config, headers: [
            HTTPHeaderField(name: "Accept", value: "image/*,*/*;q=0.8"),
            HTTPHeaderField(name: "User-Agent", value: "WebImage/\(WebImageVersion.string) (Linux)"),
        ]))
    }

    /// The configuration. Changes apply to later downloads; ``DownloaderConfig/maxConcurrentDownloads``,
    /// ``DownloaderConfig/maxConcurrentDownloadsPerHost``, the rate limit and the execution order
    /// apply at once. Timeouts, the client-wide TLS setting and the safe-fetch guard
    /// (``DownloaderConfig/addressPolicy``, ``DownloaderConfig/hostResolver``) are fixed at init.
    public var config: DownloaderConfig {
        get { settings.withLock { $0.config } }
        set {
            let old = settings.withLock { settings in
                defer { settings.config = newValue }
                return settings.config
            }
            if old.rateLimit != newValue.rateLimit { queue.setRateLimit(newValue.rateLimit, clock: newValue.clock) }
            queue.order = newValue.executionOrder
            queue.maxConcurrent = newValue.maxConcurrentDownloads
            queue.maxPerHost = newValue.maxConcurrentDownloadsPerHost
        }
    }

    /// Shorthand for `config.maxConcurrentDownloads`, changeable while downloads run.
    public var maxConcurrentDownloads: Int {
        get { config.maxConcurrentDownloads }
        set { config.maxConcurrentDownloads = newValue }
    }

    /// Sets header `name` on every later request; nil removes it.
    public func setHeader(_ value: String?, for name: String) {
        settings.withLock { $0.headers.set(name, value) }
    }

    /// The value of header `name` sent with every request.
    public func header(for name: String) -> String? {
        settings.withLock { $0.headers[header: name] }
    }

    /// Downloads queued or running.
    public var currentDownloadCount: Int { queue.count }

    /// Calls `body` with a download's URL and its number of callers whenever a caller joins a
    /// download in flight (tests wait on it instead of polling).
    func onCallerJoined(_ body: @escaping @Sendable (URL, Int) -> Void) {
        queue.callerJoined.withLock { $0 = body }
    }

    /// Downloads running now whose first request goes to `url`'s host and port.
    public func runningDownloadCount(host url: URL) -> Int {
        queue.runningCount(host: DownloadOperation.hostKey(of: url))
    }

    /// When true, queued downloads wait; running ones continue.
    public var isSuspended: Bool {
        get { queue.isSuspended }
        set { queue.isSuspended = newValue }
    }

    /// Cancels every download; each caller gets ``WebImageError/Code/cancelled``.
    public func cancelAllDownloads() { queue.cancelAll() }

    /// Cancels everything and shuts the HTTP clients (the safe-fetch guard's too) down. Later
    /// requests fail with ``WebImageError/Code/invalidDownloadOperation``.
    public func shutdown() async throws {
        let first = settings.withLock { settings -> Bool in
            defer { settings.isShutDown = true }
            return !settings.isShutDown
        }
        guard first else { return }
        queue.cancelAll()
        await guarded?.shutdown()
        try await client.shutdown()
    }

    // MARK: - ImageLoading

    /// HTTP and HTTPS URLs with a host.
    public func canRequest(_ url: URL) -> Bool {
        guard let scheme = url.scheme?.lowercased(), scheme == "http" || scheme == "https" else { return false }
        return url.host?.isEmpty == false
    }

    /// Downloads `url` through the queue (joining a running download of it) and decodes it.
    @discardableResult
    public func requestImage(with url: URL, options: WebImageOptions, context: WebImageContext,
                             progress: ImageLoadProgress?,
                             completion: @escaping ImageLoadCompletion) -> (any ImageLoadCancellable)? {
        guard canRequest(url) else {
            completion(.failure(WebImageError(.invalidURL, "Only http(s) URLs with a host can be downloaded.", url: url)))
            return nil
        }
        do {
            _ = try URLOrigin(validating: url)
        } catch {
            completion(.failure(error))
            return nil
        }
        let handler = DownloadHandler(
            id: handlerIDs.add(1, ordering: .relaxed).newValue,
            decodeOptions: LoaderDecoding.decodeOptions(url: url, options: options, context: context),
            priority: DownloadPriority(options), progress: progress, completion: completion)
        let (configInsecure, configLimit) = settings.withLock {
            ($0.config.allowInvalidSSLCertificates, $0.config.maximumResponseSize)
        }
        let insecure = options.contains(.allowInvalidSSLCertificates) || configInsecure
        let limit = min(configLimit, context.maximumResponseSize ?? .max)
        let key = DownloadKey(url: url, validators: context.validators, allowsInvalidCertificates: insecure,
                              maximumResponseSize: max(0, limit))
        if let operation = queue.join(key, handler) {
            DownloadInstrumentation.coalesced(url: url, logger: fetcher.logger)
            return ImageDownloadToken(url: url, operation: operation, handlerID: handler.id, queue: queue)
        }
        let plan: DownloadPlan
        switch makePlan(key: key, options: options, context: context, decodeOptions: handler.decodeOptions) {
        case .success(let made): plan = made
        case .failure(let error):
            completion(.failure(error))
            return nil
        }
        let (operation, _) = queue.joinOrAdd(key, handler) { sequence in
            DownloadOperation(key: key, plan: plan, sequence: sequence, fetcher: fetcher, first: handler)
        }
        return ImageDownloadToken(url: url, operation: operation, handlerID: handler.id, queue: queue)
    }

    /// The request and settings for a new download of `key`, or why it cannot start.
    private func makePlan(key: DownloadKey, options: WebImageOptions, context: WebImageContext,
                          decodeOptions: DecodeOptions) -> Result<DownloadPlan, WebImageError> {
        let url = key.url
        let (config, headers, isShutDown) = settings.withLock { ($0.config, $0.headers, $0.isShutDown) }
        guard !isShutDown else {
            return .failure(WebImageError(.invalidDownloadOperation, "The downloader has been shut down.", url: url))
        }
        var request = ImageDownloadRequest(url: url, headers: headers)
        if let validators = key.validators {
            if let etag = validators.etag { request.headers.set("If-None-Match", etag) }
            if let date = validators.lastModified { request.headers.set("If-Modified-Since", date) }
        }
        if let modifier = context.requestModifier ?? config.requestModifier {
            guard let modified = modifier.modify(request) else {
                return .failure(WebImageError(.invalidDownloadOperation,
                    "The request modifier returned nil, so there is no download.", url: url))
            }
            request = modified
        }
        guard canRequest(request.url) else {
            return .failure(WebImageError(.invalidURL, "The modified request's URL is not http(s).", url: request.url))
        }
        do {
            _ = try URLOrigin(validating: request.url)
        } catch {
            return .failure(error)
        }
        return .success(DownloadPlan(
            request: request, timeout: config.effectiveTimeout, connectTimeout: config.effectiveConnectTimeout,
            maximumResponseSize: key.maximumResponseSize, maximumRedirects: max(0, config.maximumRedirects),
            errorBodyLimit: min(max(0, context.errorBodyLimit ?? 0), key.maximumResponseSize),
            sourceAllowList: config.sourceAllowList,
            acceptableStatusCodes: config.acceptableStatusCodes,
            acceptableContentTypes: config.acceptableContentTypes, credential: config.basicCredential,
            handleCookies: options.contains(.handleCookies),
            allowInvalidCertificates: key.allowsInvalidCertificates,
            responseModifier: context.responseModifier ?? config.responseModifier,
            decryptor: context.decryptor ?? config.decryptor,
            progressiveLoad: options.contains(.progressiveLoad),
            minimumProgressInterval: config.effectiveProgressInterval,
            coder: LoaderDecoding.coder(for: context, options: options), partialDecodeOptions: decodeOptions,
            retryStrategy: context.retryStrategy ?? config.retryStrategy, clock: config.clock))
    }
}
