import Foundation
import NIOCore
import NIOHTTP1
import NIOPosix
import NIOSSL
import Synchronization
import Testing

/// A real HTTP/1.1 server on 127.0.0.1 (a port the kernel picks) inside the test process.
///
/// It serves entirely on its NIO event loop — reading, answering, pacing (delays, trickles) and
/// gates — never on the Swift concurrency pool, so suites that keep that pool busy cannot stall
/// it: a client waits only for what the route says.
///
/// Each test configures routes per path, runs requests against ``url(_:)`` and reads ``stats``,
/// or awaits them (``wait(_:sourceLocation:until:)``). Use ``withTestOrigin(_:)`` so the server
/// always shuts down, even when the test throws.
final class TestOrigin: Sendable {
    /// The bound port.
    let port: Int
    /// `http`, or `https` for an origin started with a TLS context.
    let scheme: String
    private let serverChannel: Channel
    /// Routes, counters and connections; tests await changes of the counters.
    private let state: Watched<OriginState>

    struct OriginState {
        var routes: [String: @Sendable (TestOriginRequest) -> TestOriginRoute] = [:]
        var stats = TestOriginStats()
        var children: [ObjectIdentifier: Channel] = [:]
        var stopping = false
    }

    private init(port: Int, scheme: String, serverChannel: Channel, state: Watched<OriginState>) {
        self.port = port
        self.scheme = scheme
        self.serverChannel = serverChannel
        self.state = state
    }

    /// Starts a server on 127.0.0.1 and an ephemeral port; with `tls`, it speaks HTTPS only.
    static func start(tls: NIOSSLContext? = nil) async throws -> TestOrigin {
        let state = Watched(OriginState())
        let server = try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
            .childChannelOption(.socketOption(.tcp_nodelay), value: 1)
            .childChannelInitializer { channel in
                // Timed on the event loop: when the connection came and when it went, however
                // busy the rest of the test process is.
                let id = ObjectIdentifier(channel)
                let (admitted, index) = state.update { state -> (Bool, Int) in
                    state.stats.connectionTimes.append(ConnectionTimes(accepted: .now))
                    guard !state.stopping else { return (false, state.stats.connectionTimes.count - 1) }
                    state.children[id] = channel
                    state.stats.connectionsAccepted += 1
                    return (true, state.stats.connectionTimes.count - 1)
                }
                let connection = TestOriginConnection(channel: channel, state: state)
                channel.closeFuture.whenComplete { _ in
                    let closed = ContinuousClock.now
                    state.update { state in
                        state.stats.connectionTimes[index].closed = closed
                        guard admitted else { return }
                        state.children[id] = nil
                        if !connection.closedByServer, !state.stopping { state.stats.connectionsClosedByClient += 1 }
                    }
                }
                guard admitted else { return channel.close() }
                return channel.eventLoop.makeCompletedFuture {
                    if let tls { try channel.pipeline.syncOperations.addHandler(NIOSSLServerHandler(context: tls)) }
                    try channel.pipeline.syncOperations.configureHTTPServerPipeline()
                    try channel.pipeline.syncOperations.addHandler(TestOriginHandler(connection: connection))
                }
            }
            .bind(host: "127.0.0.1", port: 0).get()
        return TestOrigin(port: server.localAddress?.port ?? 0, scheme: tls == nil ? "http" : "https",
                          serverChannel: server, state: state)
    }

    /// Closes the listener and every open connection (responses still running are abandoned).
    func stop() async {
        let children = state.update { state in
            state.stopping = true
            return Array(state.children.values)
        }
        try? await serverChannel.close()
        for child in children { try? await child.close() }
    }

    /// `<scheme>://127.0.0.1:<port><path>`.
    func url(_ path: String) -> URL {
        URL(string: "\(scheme)://127.0.0.1:\(port)\(path)")!
    }

    /// The same origin string a browser would compute: scheme, host and port.
    var origin: String { "\(scheme)://127.0.0.1:\(port)" }

    /// Serves `route` on `path` (exact match, query included if the request has one).
    func setRoute(_ path: String, _ route: TestOriginRoute) {
        state.update { $0.routes[path] = { _ in route } }
    }

    /// Serves `routes` on `path` in turn, one per request, and the last one from then on.
    func setRoutes(_ path: String, _ routes: [TestOriginRoute]) {
        precondition(!routes.isEmpty, "at least one route")
        let served = Mutex(0)
        setHandler(path) { _ in
            let index = served.withLock { count -> Int in
                defer { count += 1 }
                return count
            }
            return routes[min(index, routes.count - 1)]
        }
    }

    /// Serves whatever `handler` returns for each request on `path`.
    func setHandler(_ path: String, _ handler: @escaping @Sendable (TestOriginRequest) -> TestOriginRoute) {
        state.update { $0.routes[path] = handler }
    }

    /// A snapshot of the counters.
    var stats: TestOriginStats { state.value.stats }

    /// How many requests reached `path`.
    func requestCount(_ path: String) -> Int { state.value.stats.requestsPerPath[path, default: 0] }

    /// The requests that reached `path`, oldest first.
    func requests(_ path: String) -> [TestOriginRequest] {
        state.value.stats.requests.filter { $0.path == path }
    }

    /// Waits until the counters satisfy `condition` (checked at every change), failing the test
    /// when that takes longer than the standard timeout.
    @discardableResult
    func wait(_ what: @autoclosure () -> String, sourceLocation: SourceLocation = #_sourceLocation,
              until condition: @escaping @Sendable (TestOriginStats) -> Bool) async -> Bool {
        await state.wait(what(), sourceLocation: sourceLocation) { condition($0.stats) }
    }

    /// Waits until `count` requests have reached `path`.
    @discardableResult
    func waitForRequest(_ path: String, count: Int = 1, sourceLocation: SourceLocation = #_sourceLocation) async -> Bool {
        await wait("\(count) request(s) of \(path)", sourceLocation: sourceLocation) {
            $0.requestsPerPath[path, default: 0] >= count
        }
    }

    /// Waits until `count` requests have arrived in all.
    @discardableResult
    func waitForRequests(_ count: Int, sourceLocation: SourceLocation = #_sourceLocation) async -> Bool {
        await wait("\(count) requests", sourceLocation: sourceLocation) { $0.requests.count >= count }
    }
}

/// One accepted connection: its channel, the origin's state, and whether the origin closed it.
/// Touched only on the channel's event loop, except ``closedByServer`` (read once it closed).
final class TestOriginConnection: Sendable {
    let channel: Channel
    let state: Watched<TestOrigin.OriginState>
    private let serverClosed = Mutex(false)

    init(channel: Channel, state: Watched<TestOrigin.OriginState>) {
        self.channel = channel
        self.state = state
    }

    var closedByServer: Bool { serverClosed.withLock { $0 } }

    /// The origin closes the connection (a `closeAfter` body, a hang-up, `Connection: close`).
    func close() {
        serverClosed.withLock { $0 = true }
        channel.close(promise: nil)
    }

    /// Counts a request and returns its route.
    func admit(_ head: HTTPRequestHead) -> (TestOriginRequest, TestOriginRoute) {
        let request = TestOriginRequest(path: head.uri, method: head.method.rawValue,
                                        headers: head.headers.map { ($0.name, $0.value) })
        let handler = state.update { state in
            state.stats.requestsPerPath[head.uri, default: 0] += 1
            state.stats.requests.append(request)
            state.stats.inFlight += 1
            state.stats.maxInFlight = max(state.stats.maxInFlight, state.stats.inFlight)
            return state.routes[head.uri]
        }
        return (request, TestOriginResponder.effectiveRoute(handler?(request) ?? .status(404), for: request))
    }

    /// A response is over: sent to its end (`complete`), or abandoned (the client left, or a stall).
    func responseEnded(complete: Bool) {
        state.update { state in
            state.stats.inFlight -= 1
            if complete { state.stats.completedResponses += 1 }
            if !complete, !state.stopping { state.stats.abortedResponses += 1 }
        }
    }
}

/// Reads requests off one connection and starts their responses; the HTTP pipeline handler holds
/// a pipelined request back until the response before it has ended.
final class TestOriginHandler: ChannelInboundHandler {
    typealias InboundIn = HTTPServerRequestPart

    private let connection: TestOriginConnection
    private var head: HTTPRequestHead?

    init(connection: TestOriginConnection) { self.connection = connection }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch unwrapInboundIn(data) {
        case .head(let requestHead): head = requestHead
        case .body: break
        case .end:
            guard let requestHead = head else { return }
            head = nil
            let (_, route) = connection.admit(requestHead)
            TestOriginResponse(connection: connection, route: route, keepAlive: requestHead.isKeepAlive).start()
        }
    }
}

/// Runs this process's test origin on the loopback interface for one test, and stops it afterwards.
func withTestOrigin<T>(tls: NIOSSLContext? = nil, _ body: (TestOrigin) async throws -> T) async throws -> T {
    let origin = try await TestOrigin.start(tls: tls)
    do {
        let result = try await body(origin)
        await origin.stop()
        return result
    } catch {
        await origin.stop()
        throw error
    }
}
