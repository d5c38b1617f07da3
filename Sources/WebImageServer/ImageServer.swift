import Foundation
import HTTPTypes
import Hummingbird
import Logging
import NIOCore
import Prometheus
import ServiceLifecycle
import Synchronization
import WebImage

/// `webimage serve`: an HTTP image server with imgproxy's URL API, on the library's pipeline.
///
/// Sources are fetched through an `ImageManager` (coalesced, retried, cached on disk, behind
/// the safe-fetch guard unless the configuration opens it), decoded at the size the result needs,
/// transformed, encoded, and served with an ETag. Run it with `run()`, which returns after a
/// graceful shutdown (SIGTERM or SIGINT).
public final class ImageServer: Sendable {
    /// What the server was told.
    public let configuration: ServerConfiguration
    let pipeline: ImagePipeline
    let metrics: ServerMetrics
    let logger: Logger
    let startedAt: ContinuousClock.Instant
    private let boundPort = Mutex<Int?>(nil)
    private let requestsInFlight = Atomic<Int>(0)
    /// Set when the graceful shutdown begins: new image requests on kept-alive connections get 503.
    private let draining = Atomic<Bool>(false)
    /// Stops the work of requests whose client has gone.
    let departures = ClientDepartures()

    /// A server for `configuration`; throws for a configuration it cannot use (a bad key or salt,
    /// a malformed preset). `/metrics` prints `registry`: make it swift-metrics' backend too
    /// (`PrometheusMetricsFactory`) to see the library's download and cache metrics there.
    public init(configuration: ServerConfiguration, logger: Logger = Logger(label: "webimage.serve"),
                registry: PrometheusCollectorRegistry = PrometheusCollectorRegistry()) throws {
        try configuration.checkConnectionSettings()
        self.configuration = configuration
        self.logger = logger
        self.metrics = ServerMetrics(registry: registry)
        self.pipeline = try ImagePipeline(configuration: configuration, logger: logger, metrics: metrics)
        self.startedAt = .now
    }

    /// From now on, image requests are answered 503 (`shutting_down`).
    func beginDraining() {
        draining.store(true, ordering: .relaxed)
    }

    /// The port the server listens on, once it does (useful with port 0).
    public var port: Int? { boundPort.withLock { $0 } }

    /// Listens and serves until SIGTERM or SIGINT, then stops accepting connections, lets the
    /// requests in flight finish (within ``ServerConfiguration/shutdownTimeout``) and returns; a
    /// second SIGTERM or SIGINT cuts that drain short. A watermark URL is fetched first: when it
    /// cannot be fetched or decoded, `run` throws before listening. `onRunning` is called with the port once
    /// the server listens, `onStopping` with the number of requests in flight when the shutdown
    /// begins, `onCutShort` with the number still in flight when a second signal cuts it.
    public func run(onRunning: @escaping @Sendable (Int) async -> Void = { _ in },
                    onStopping: @escaping @Sendable (Int) async -> Void = { _ in },
                    onCutShort: @escaping @Sendable (Int) async -> Void = { _ in }) async throws {
        // A URL watermark is fetched before the server listens: one it cannot have stops it here.
        do {
            try await pipeline.loadWatermark()
        } catch {
            await pipeline.shutdown()
            throw error
        }
        let signals = StopSignals()
        let application = makeApplication(onRunning: onRunning)
        let notice = ShutdownNotice { [self] in
            beginDraining()
            await onStopping(requestsInFlight.load(ordering: .relaxed))
        }
        var groupConfiguration = ServiceGroupConfiguration(
            services: [.init(service: application),
                       .init(service: notice, successTerminationBehavior: .ignore)],
            gracefulShutdownSignals: [.sigterm, .sigint],
            logger: logger)
        groupConfiguration.maximumGracefulShutdownDuration = .milliseconds(Int(configuration.shutdownTimeout * 1000))
        let group = ServiceGroup(configuration: groupConfiguration)
        try await withThrowingTaskGroup(of: Bool.self) { tasks in
            tasks.addTask {
                try await group.run()
                return false
            }
            tasks.addTask { [self] in
                guard await signals.wait(for: 2) else { return false }
                let inFlight = requestsInFlight.load(ordering: .relaxed)
                logger.warning("second signal: the drain is cut short", metadata: ["requests_in_flight": "\(inFlight)"])
                await onCutShort(inFlight)
                return true
            }
            // The group ends (the drain is over) or a second signal comes: either ends the other.
            let cutShort = try await tasks.next() ?? false
            tasks.cancelAll()
            if cutShort {
                // The requests cancelled with the group may end in errors: the drain was given up.
                while case .some = try? await tasks.next() {}
            } else {
                try await tasks.waitForAll()
            }
        }
        await pipeline.shutdown()
    }

    /// The Hummingbird application: one responder for every path. Running it as a service (or
    /// through a `ServiceGroup`) serves until that group shuts down.
    func makeApplication(onRunning: @escaping @Sendable (Int) async -> Void = { _ in })
        -> some ApplicationProtocol {
        let responder = CallbackResponder<ServerRequestContext> { [self] request, context in
            await respond(to: request, connection: context.channel)
        }
        // The idle and read timeouts are the connection policy's.
        let connections = ConnectionPolicy(configuration: configuration, logger: logger)
        return Application(
            responder: responder,
            server: .http1(configuration: .init(idleTimeout: nil), connections: connections,
                           departures: departures) { [self] head in
                cachedAnswer(to: head)
            },
            configuration: .init(address: .hostname(configuration.host, port: configuration.port),
                                 serverName: Self.serverName),
            onServerRunning: { [self] channel in
                let logger = logger
                try? await channel.eventLoop.submit {
                    try channel.pipeline.syncOperations.addHandler(AcceptFailureLogger(logger: logger), position: .first)
                }.get()
                let port = channel.localAddress?.port ?? configuration.port
                boundPort.withLock { $0 = port }
                logger.info("listening", metadata: ["host": "\(configuration.host)", "port": "\(port)"])
                await onRunning(port)
            },
            logger: logger)
    }

    /// Answers one request: health, metrics or an image. Every answer carries the request's id
    /// (`X-Request-ID`), and every request is logged with it: results made or failed at `info`
    /// (a failure of the server or the source at `warning`), cache hits and operations at `debug`.
    func respond(to request: Request, connection: (any Channel)? = nil) async -> Response {
        await answer(request.head, connection: connection).hummingbirdResponse
    }

    /// ``respond(to:connection:)`` for a request's head alone: what ``response(to:)`` and the
    /// Hummingbird application share.
    func answer(_ head: HTTPRequest, connection: (any Channel)?) async -> ImageServerResponse {
        requestsInFlight.add(1, ordering: .relaxed)
        defer { requestsInFlight.subtract(1, ordering: .relaxed) }
        let start = ContinuousClock.now
        let id = RequestID.make(incoming: head.headerFields[.xRequestID])
        var (response, outcome) = await route(head, connection: connection)
        response.headers[.xRequestID] = id
        let elapsed = ContinuousClock.now - start
        metrics.requestFinished(status: response.status.code)
        metrics.record(.total, elapsed)
        log(method: head.method, path: head.path ?? "/", status: response.status.code, outcome: outcome,
            id: id, elapsed: elapsed)
        return response
    }

    /// The answer to a GET for a result kept in memory, made on the connection's event loop
    /// (``CachedResultHandler``) with the headers, metrics and log line the handler's answer has;
    /// nil for anything else, which the async handler answers.
    func cachedAnswer(to head: HTTPRequest) -> CachedAnswer? {
        guard head.method == .get, let target = head.path, target.utf8.count <= configuration.maxURLLength,
              !draining.load(ordering: .relaxed), head.headerFields[.connection] == nil,
              let cached = pipeline.cachedResult(for: target, accept: head.headerFields[.accept]) else {
            return nil
        }
        let (served, freshUntil) = cached
        let start = ContinuousClock.now
        let id = RequestID.make(incoming: head.headerFields[.xRequestID])
        let cacheControl = pipeline.freshness.cacheControl(freshUntil: freshUntil, expires: served.expires,
                                                           now: configuration.now())
        var (status, headers, body) = ResultResponse.parts(served, method: head.method,
                                                           ifNoneMatch: head.headerFields[.ifNoneMatch],
                                                           cacheControl: cacheControl)
        headers[.xRequestID] = id
        headers[.date] = ServerDate.now()
        headers[.server] = Self.serverName
        let elapsed = ContinuousClock.now - start
        metrics.requestFinished(status: status.code)
        metrics.record(.total, elapsed)
        log(method: head.method, path: target, status: status.code, outcome: .cacheHit, id: id, elapsed: elapsed)
        return CachedAnswer(head: HTTPResponse(status: status, headerFields: headers), body: body)
    }

    /// The `Server` header of every answer.
    static let serverName = "webimage"

    /// What became of a request, for its log line.
    enum Outcome {
        case operation, cacheHit, processed
        case failed(ServerError)
    }

    private func route(_ request: HTTPRequest, connection: (any Channel)?) async -> (ImageServerResponse, Outcome) {
        let target = request.path ?? "/"
        if request.method == .post, target.hasPrefix(ImagePipeline.purgePrefix + "/") {
            return await purgeResponse(target: target)
        }
        guard request.method == .get || request.method == .head else {
            return failure(.methodNotAllowed)
        }
        if target.hasPrefix(ImagePipeline.infoPrefix + "/") {
            if draining.load(ordering: .relaxed) { return failure(.shuttingDown) }
            switch await infoAnswer(target: target) {
            case .success(let response): return (response, .processed)
            case .failure(let error): return failure(error)
            }
        }
        switch target {
        case "/health":
            return (healthResponse(), .operation)
        case "/metrics":
            var headers = HTTPFields()
            headers[.contentType] = "text/plain; version=0.0.4"
            return (ImageServerResponse(status: .ok, headers: headers, body: ByteBuffer(string: metrics.text())),
                    .operation)
        case "/favicon.ico", "/robots.txt":
            return failure(ServerError(status: 404, name: "not_found", message: "Not found."))
        default:
            return await imageResponse(target: target, request: request, connection: connection)
        }
    }

    private func imageResponse(target: String, request: HTTPRequest, connection: (any Channel)?) async
        -> (ImageServerResponse, Outcome) {
        guard target.utf8.count <= configuration.maxURLLength else {
            return failure(ServerError(status: 414, name: "url_too_long",
                                       message: "The URL is longer than \(configuration.maxURLLength) bytes."))
        }
        if draining.load(ordering: .relaxed) { return failure(.shuttingDown) }
        do {
            let accept = request.headerFields[.accept]
            let (result, cached, freshUntil) = if let connection {
                try await departures.run(on: connection) { try await self.pipeline.result(for: target, accept: accept) }
            } else {
                try await pipeline.result(for: target, accept: accept)
            }
            let cacheControl = pipeline.freshness.cacheControl(freshUntil: freshUntil, expires: result.expires,
                                                               now: configuration.now())
            let (status, headers, body) = ResultResponse.parts(result, method: request.method,
                                                               ifNoneMatch: request.headerFields[.ifNoneMatch],
                                                               cacheControl: cacheControl)
            return (ImageServerResponse(status: status, headers: headers, body: body), cached ? .cacheHit : .processed)
        } catch let error as ServerError {
            return failure(error)
        } catch is CancellationError {
            return failure(ServerError(status: 499, name: "cancelled", message: "The request was cancelled."))
        } catch {
            return failure(.internalError(error))
        }
    }

    /// Answers `POST /purge/SIGNATURE/plain/SOURCE` (see ``ImagePipeline/purge(target:)``): 200
    /// with `{"purged": SOURCE}`.
    private func purgeResponse(target: String) async -> (ImageServerResponse, Outcome) {
        guard target.utf8.count <= configuration.maxURLLength else {
            return failure(ServerError(status: 414, name: "url_too_long",
                                       message: "The URL is longer than \(configuration.maxURLLength) bytes."))
        }
        do {
            let source = try await pipeline.purge(target: target)
            let body = (try? JSONSerialization.data(withJSONObject: ["purged": source.absoluteString],
                                                    options: [.sortedKeys, .withoutEscapingSlashes])) ?? Data()
            var headers = HTTPFields()
            headers[.contentType] = "application/json"
            headers[.cacheControl] = "no-store"
            return (ImageServerResponse(status: .ok, headers: headers, body: ByteBuffer(bytes: body)), .operation)
        } catch {
            return failure(error)
        }
    }

    private func failure(_ error: ServerError) -> (ImageServerResponse, Outcome) {
        (errorResponse(error), .failed(error))
    }

    private func log(method: HTTPRequest.Method, path: String, status: Int, outcome: Outcome, id: String,
                     elapsed: Duration) {
        let level: Logger.Level
        var metadata: Logger.Metadata = [:]
        switch outcome {
        case .operation, .cacheHit: level = .debug
        case .processed: level = .info
        case .failed(let error):
            level = error.status >= 500 && error.status != 503 ? .warning : .info
            metadata["error"] = "\(error.name): \(error.message)"
            if let detail = error.detail { metadata["detail"] = "\(detail)" }
        }
        guard logger.logLevel <= level else { return }
        metadata["request_id"] = "\(id)"
        metadata["method"] = "\(method)"
        metadata["path"] = "\(path)"
        metadata["status"] = "\(status)"
        metadata["duration_ms"] = "\(Double(elapsed.components.attoseconds / 1_000_000_000_000) / 1000 + Double(elapsed.components.seconds) * 1000)"
        if case .cacheHit = outcome { metadata["cache"] = "hit" }
        logger.log(level: level, "request", metadata: metadata)
    }

    private func healthResponse() -> ImageServerResponse {
        let load = pipeline.limiter.load
        let object: [String: Any] = [
            "status": "ok",
            "uptime_seconds": Double((ContinuousClock.now - startedAt).components.seconds),
            "requests_in_flight": requestsInFlight.load(ordering: .relaxed) - 1,
            "workers_busy": load.running,
            "queued": load.waiting,
            "result_cache_bytes": pipeline.resultCacheBytes,
            "result_disk_cache_bytes": pipeline.resultDiskBytes,
            "results_in_progress": pipeline.jobsInFlight,
            "source_revalidations_in_flight": pipeline.states.revalidationsInFlight,
            "results_by_tier": metrics.resultsByTier,
            "shared_cache": pipeline.shared?.health ?? ["enabled": false],
            "bitmap_pool": Self.poolHealth(BitmapPool.shared.statistics),
            "rss_bytes": ProcessMemoryUsage.residentBytes ?? 0,
            "peak_rss_bytes": ProcessMemoryUsage.peakResidentBytes,
            "memory": pipeline.memoryHealth,
        ]
        let body = (try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys])) ?? Data()
        var headers = HTTPFields()
        headers[.contentType] = "application/json"
        headers[.cacheControl] = "no-cache"
        return ImageServerResponse(status: .ok, headers: headers, body: ByteBuffer(bytes: body))
    }

    private static func poolHealth(_ pool: BitmapPoolStatistics) -> [String: Any] {
        ["hits": pool.hits, "misses": pool.misses, "hit_ratio": pool.hitRatio, "held_bytes": pool.heldBytes]
    }

    func errorResponse(_ error: ServerError) -> ImageServerResponse {
        var headers = HTTPFields()
        headers[.contentType] = "application/json"
        headers[.xContentTypeOptions] = "nosniff"
        if let retryAfter = error.retryAfter { headers[.retryAfter] = String(retryAfter) }
        if error.status == 405 { headers[.allow] = ServerError.allowedMethods }
        return ImageServerResponse(status: .init(code: error.status), headers: headers,
                                   body: ByteBuffer(bytes: error.body))
    }
}

/// A service that only waits for the graceful shutdown to begin, and says so.
private struct ShutdownNotice: Service {
    let onStopping: @Sendable () async -> Void

    func run() async throws {
        try? await gracefulShutdown()
        await onStopping()
    }
}

extension HTTPField.Name {
    /// The request's id, echoed on every response.
    static let xRequestID = HTTPField.Name("X-Request-ID")!
}
