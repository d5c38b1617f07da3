import Foundation
import NIOCore
import NIOHTTP1
import NIOPosix
import NIOSSL
import Synchronization

/// A real HTTP/1.1 server on 127.0.0.1 (a port the kernel picks) inside the test process.
///
/// Each test configures routes per path, runs requests against ``url(_:)`` and reads ``stats``.
/// Use ``withTestOrigin(_:)`` so the server always shuts down, even when the test throws.
final class TestOrigin: Sendable {
    /// The bound port.
    let port: Int
    /// `http`, or `https` for an origin started with a TLS context.
    let scheme: String
    private let serverChannel: Channel
    private let acceptTask: Mutex<Task<Void, Never>?>
    private let state = Mutex(OriginState())

    struct OriginState {
        var routes: [String: @Sendable (TestOriginRequest) -> TestOriginRoute] = [:]
        var stats = TestOriginStats()
        var children: [ObjectIdentifier: Channel] = [:]
        var stopping = false
    }

    /// The connection's channel and its async wrapper, as the accept loop receives them.
    struct Connection: Sendable {
        let channel: Channel
        let async: NIOAsyncChannel<HTTPServerRequestPart, HTTPServerResponsePart>
    }

    private init(port: Int, scheme: String, serverChannel: Channel) {
        self.port = port
        self.scheme = scheme
        self.serverChannel = serverChannel
        self.acceptTask = Mutex(nil)
    }

    /// Starts a server on 127.0.0.1 and an ephemeral port; with `tls`, it speaks HTTPS only.
    static func start(tls: NIOSSLContext? = nil) async throws -> TestOrigin {
        let server = try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
            .childChannelOption(.socketOption(.tcp_nodelay), value: 1)
            .bind(host: "127.0.0.1", port: 0) { channel in
                channel.eventLoop.makeCompletedFuture {
                    if let tls { try channel.pipeline.syncOperations.addHandler(NIOSSLServerHandler(context: tls)) }
                    try channel.pipeline.syncOperations.configureHTTPServerPipeline()
                    let wrapped = try NIOAsyncChannel<HTTPServerRequestPart, HTTPServerResponsePart>(
                        wrappingChannelSynchronously: channel)
                    return Connection(channel: channel, async: wrapped)
                }
            }
        let origin = TestOrigin(port: server.channel.localAddress?.port ?? 0, scheme: tls == nil ? "http" : "https",
                                serverChannel: server.channel)
        let task = Task<Void, Never> {
            _ = try? await withThrowingDiscardingTaskGroup { group in
                // The loop ends when `stop()` closes the listener, after every connection already
                // accepted has been handed to `serve` (which closes it): cancelling the loop instead
                // would drop those with their writers unfinished, which traps in NIO.
                try await server.executeThenClose { inbound in
                    for try await connection in inbound {
                        group.addTask { await origin.serve(connection) }
                    }
                }
                // Then stop the responses still running (delays, trickles, stalls).
                group.cancelAll()
            }
        }
        origin.acceptTask.withLock { $0 = task }
        return origin
    }

    /// Closes the listener and every open connection, then waits for the accept loop to end.
    func stop() async {
        let children = state.withLock { state in
            state.stopping = true
            return Array(state.children.values)
        }
        try? await serverChannel.close()
        for child in children { try? await child.close() }
        await acceptTask.withLock { $0 }?.value
    }

    /// `<scheme>://127.0.0.1:<port><path>`.
    func url(_ path: String) -> URL {
        URL(string: "\(scheme)://127.0.0.1:\(port)\(path)")!
    }

    /// The same origin string a browser would compute: scheme, host and port.
    var origin: String { "\(scheme)://127.0.0.1:\(port)" }

    /// Serves `route` on `path` (exact match, query included if the request has one).
    func setRoute(_ path: String, _ route: TestOriginRoute) {
        state.withLock { $0.routes[path] = { _ in route } }
    }

    /// Serves whatever `handler` returns for each request on `path`.
    func setHandler(_ path: String, _ handler: @escaping @Sendable (TestOriginRequest) -> TestOriginRoute) {
        state.withLock { $0.routes[path] = handler }
    }

    /// A snapshot of the counters.
    var stats: TestOriginStats { state.withLock { $0.stats } }

    /// How many requests reached `path`.
    func requestCount(_ path: String) -> Int { state.withLock { $0.stats.requestsPerPath[path, default: 0] } }

    /// The requests that reached `path`, oldest first.
    func requests(_ path: String) -> [TestOriginRequest] {
        state.withLock { $0.stats.requests.filter { $0.path == path } }
    }

    // MARK: - Serving

    private func serve(_ connection: Connection) async {
        let id = ObjectIdentifier(connection.channel)
        let admitted = state.withLock { state -> Bool in
            guard !state.stopping else { return false }
            state.children[id] = connection.channel
            state.stats.connectionsAccepted += 1
            return true
        }
        guard admitted else {
            // executeThenClose finishes the async writer; dropping it unfinished traps in NIO.
            try? await connection.async.executeThenClose { _, _ in }
            return
        }
        let closedByServer: Bool
        do {
            closedByServer = try await connection.async.executeThenClose { inbound, outbound in
                var head: HTTPRequestHead?
                for try await part in inbound {
                    switch part {
                    case .head(let requestHead): head = requestHead
                    case .body: break
                    case .end:
                        guard let requestHead = head else { continue }
                        head = nil
                        let keepOpen = try await respond(to: requestHead, outbound: outbound,
                                                         channel: connection.channel)
                        if !keepOpen { return true }
                    }
                }
                return false
            }
        } catch {
            closedByServer = false
        }
        state.withLock { state in
            state.children[id] = nil
            if !closedByServer, !state.stopping { state.stats.connectionsClosedByClient += 1 }
        }
    }

    /// Sends the response for `head`; returns false when the connection must close afterwards.
    private func respond(to head: HTTPRequestHead,
                         outbound: NIOAsyncChannelOutboundWriter<HTTPServerResponsePart>,
                         channel: Channel) async throws -> Bool {
        let request = TestOriginRequest(path: head.uri, method: head.method.rawValue,
                                        headers: head.headers.map { ($0.name, $0.value) })
        let handler = state.withLock { state in
            state.stats.requestsPerPath[head.uri, default: 0] += 1
            state.stats.requests.append(request)
            state.stats.inFlight += 1
            state.stats.maxInFlight = max(state.stats.maxInFlight, state.stats.inFlight)
            return state.routes[head.uri]
        }
        var finished = false
        defer {
            state.withLock { state in
                state.stats.inFlight -= 1
                if !finished, !state.stopping { state.stats.abortedResponses += 1 }
            }
        }
        let route = TestOriginResponder.effectiveRoute(handler?(request) ?? .status(404), for: request)
        if route.delay > .zero { try await Task.sleep(for: route.delay) }
        if route.closeWithoutResponse {
            finished = true
            return false
        }
        let keepOpen = try await TestOriginResponder.send(route, outbound: outbound, channel: channel,
                                                          keepAlive: head.isKeepAlive)
        finished = keepOpen || isCloseModeComplete(route)
        return keepOpen
    }

    private func isCloseModeComplete(_ route: TestOriginRoute) -> Bool {
        if case .closeAfter = route.mode { return true }
        return false
    }
}

/// Runs `body` with a fresh origin (HTTPS when `tls` is given) and always stops the origin afterwards.
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
