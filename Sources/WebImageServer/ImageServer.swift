import Foundation
import Hummingbird
import Logging
import NIOCore
import Prometheus
import ServiceLifecycle
import Synchronization
import WebImage

/// `webimage serve`: an HTTP image server with imgproxy's URL API, on the library's pipeline.
///
/// Sources are fetched through an ``ImageManager`` (coalesced, retried, cached on disk, behind
/// the safe-fetch guard unless the configuration opens it), decoded at the size the result needs,
/// transformed, encoded, and served with an ETag. Run it with ``run()``, which returns after a
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

    /// A server for `configuration`; throws for a configuration it cannot use (a bad key or salt,
    /// a malformed preset). `/metrics` prints `registry`: make it swift-metrics' backend too
    /// (`PrometheusMetricsFactory`) to see the library's download and cache metrics there.
    public init(configuration: ServerConfiguration, logger: Logger = Logger(label: "webimage.serve"),
                registry: PrometheusCollectorRegistry = PrometheusCollectorRegistry()) throws {
        self.configuration = configuration
        self.logger = logger
        self.metrics = ServerMetrics(registry: registry)
        self.pipeline = try ImagePipeline(configuration: configuration, logger: logger, metrics: metrics)
        self.startedAt = .now
    }

    /// The port the server listens on, once it does (useful with port 0).
    public var port: Int? { boundPort.withLock { $0 } }

    /// Listens and serves until SIGTERM or SIGINT, then stops accepting connections, lets the
    /// requests in flight finish (within ``ServerConfiguration/shutdownTimeout``) and returns.
    /// `onRunning` is called with the port once the server listens, `onStopping` with the number
    /// of requests in flight when the shutdown begins.
    public func run(onRunning: @escaping @Sendable (Int) async -> Void = { _ in },
                    onStopping: @escaping @Sendable (Int) async -> Void = { _ in }) async throws {
        let application = makeApplication(onRunning: onRunning)
        let notice = ShutdownNotice { [self] in
            await onStopping(requestsInFlight.load(ordering: .relaxed))
        }
        var groupConfiguration = ServiceGroupConfiguration(
            services: [.init(service: application),
                       .init(service: notice, successTerminationBehavior: .ignore)],
            gracefulShutdownSignals: [.sigterm, .sigint],
            logger: logger)
        groupConfiguration.maximumGracefulShutdownDuration = .milliseconds(Int(configuration.shutdownTimeout * 1000))
        let group = ServiceGroup(configuration: groupConfiguration)
        try await group.run()
        await pipeline.shutdown()
    }

    /// The Hummingbird application: one responder for every path. Running it as a service (or
    /// through a `ServiceGroup`) serves until that group shuts down.
    func makeApplication(onRunning: @escaping @Sendable (Int) async -> Void = { _ in })
        -> some ApplicationProtocol {
        let responder = CallbackResponder<BasicRequestContext> { [self] request, _ in
            await respond(to: request)
        }
        return Application(
            responder: responder,
            server: .http1(configuration: .init(idleTimeout: .seconds(75))),
            configuration: .init(address: .hostname(configuration.host, port: configuration.port),
                                 serverName: "webimage"),
            onServerRunning: { [self] channel in
                let port = channel.localAddress?.port ?? configuration.port
                boundPort.withLock { $0 = port }
                logger.info("listening", metadata: ["host": "\(configuration.host)", "port": "\(port)"])
                await onRunning(port)
            },
            logger: logger)
    }

    /// Answers one request: health, metrics or an image.
    func respond(to request: Request) async -> Response {
        requestsInFlight.add(1, ordering: .relaxed)
        defer { requestsInFlight.subtract(1, ordering: .relaxed) }
        let start = ContinuousClock.now
        let response = await route(request)
        metrics.requestFinished(status: response.status.code)
        metrics.record(.total, ContinuousClock.now - start)
        return response
    }

    private func route(_ request: Request) async -> Response {
        let target = request.head.path ?? "/"
        guard request.method == .get || request.method == .head else {
            return errorResponse(ServerError(status: 405, name: "method_not_allowed",
                                             message: "Only GET and HEAD are served."))
        }
        switch target {
        case "/health":
            return healthResponse()
        case "/metrics":
            var headers = HTTPFields()
            headers[.contentType] = "text/plain; version=0.0.4"
            return Response(status: .ok, headers: headers,
                            body: .init(byteBuffer: ByteBuffer(string: metrics.text())))
        case "/favicon.ico", "/robots.txt":
            return errorResponse(ServerError(status: 404, name: "not_found", message: "Not found."))
        default:
            return await imageResponse(target: target, request: request)
        }
    }

    private func imageResponse(target: String, request: Request) async -> Response {
        guard target.utf8.count <= configuration.maxURLLength else {
            return errorResponse(ServerError(status: 414, name: "url_too_long",
                message: "The URL is longer than \(configuration.maxURLLength) bytes."))
        }
        let accept = request.headers[.accept]
        do {
            let result = try await pipeline.result(for: target, accept: accept)
            return ResultResponse.make(result, request: request, configuration: configuration, now: configuration.now())
        } catch let error as ServerError {
            if error.status >= 500 {
                logger.warning("request failed", metadata: ["target": "\(target)", "error": "\(error.message)"])
            }
            return errorResponse(error)
        } catch {
            logger.error("request failed", metadata: ["target": "\(target)", "error": "\(error)"])
            return errorResponse(ServerError(status: 500, name: "internal_error", message: "\(error)"))
        }
    }

    private func healthResponse() -> Response {
        let load = pipeline.limiter.load
        let object: [String: Any] = [
            "status": "ok",
            "uptime_seconds": Double((ContinuousClock.now - startedAt).components.seconds),
            "requests_in_flight": requestsInFlight.load(ordering: .relaxed) - 1,
            "workers_busy": load.running,
            "queued": load.waiting,
            "result_cache_bytes": pipeline.resultCacheBytes,
        ]
        let body = (try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys])) ?? Data()
        var headers = HTTPFields()
        headers[.contentType] = "application/json"
        headers[.cacheControl] = "no-cache"
        return Response(status: .ok, headers: headers, body: .init(byteBuffer: ByteBuffer(bytes: body)))
    }

    func errorResponse(_ error: ServerError) -> Response {
        var headers = HTTPFields()
        headers[.contentType] = "application/json"
        headers[.xContentTypeOptions] = "nosniff"
        if let retryAfter = error.retryAfter { headers[.retryAfter] = String(retryAfter) }
        return Response(status: .init(code: error.status), headers: headers,
                        body: .init(byteBuffer: ByteBuffer(bytes: error.body)))
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
