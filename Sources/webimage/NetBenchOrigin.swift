import Foundation
import NIOCore
import NIOHTTP1
import NIOPosix
import Synchronization

/// The in-process origin of `webimage bench-network`: one listener per loopback address
/// (127.0.0.1, 127.0.0.2, …: separate hosts to a client), serving one small image at any path
/// under `/img/` and a large one at `/big` with ranges and an ETag. `/big?cut=F` closes the
/// connection after the fraction F of the body (once per `cut` value: the retry then resumes).
/// It counts requests in flight per host, their peaks, and the body bytes it sent.
final class NetBenchOrigin: Sendable {
    struct Stats: Sendable {
        var inFlight: [String: Int] = [:]
        var peak: [String: Int] = [:]
        var bytesSent = 0
        var requests = 0
        var cutsDone: Set<String> = []
    }

    let small: [UInt8]
    let big: [UInt8]
    let stats = Mutex(Stats())
    private let channels: Mutex<[Channel]>
    let port: Int

    private init(small: [UInt8], big: [UInt8], channels: [Channel], port: Int) {
        self.small = small
        self.big = big
        self.channels = Mutex(channels)
        self.port = port
    }

    /// Listens on 127.0.0.1…127.0.0.`hosts`, all on one port.
    static func start(hosts: Int, small: [UInt8], big: [UInt8]) async throws -> NetBenchOrigin {
        let box = Mutex<NetBenchOrigin?>(nil)
        let bootstrap = ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
            .childChannelOption(.socketOption(.tcp_nodelay), value: 1)
            .childChannelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.configureHTTPServerPipeline(withErrorHandling: true)
                    try channel.pipeline.syncOperations.addHandler(NetBenchHandler(origin: { box.withLock { $0 } }))
                }
            }
        let first = try await bootstrap.bind(host: "127.0.0.1", port: 0).get()
        let port = first.localAddress?.port ?? 0
        var channels = [first]
        for host in stride(from: 2, through: max(hosts, 1), by: 1) {
            channels.append(try await bootstrap.bind(host: "127.0.0.\(host)", port: port).get())
        }
        let origin = NetBenchOrigin(small: small, big: big, channels: channels, port: port)
        box.withLock { $0 = origin }
        return origin
    }

    /// `http://127.0.0.<host>:<port><path>`.
    func url(host: Int, _ path: String) -> URL { URL(string: "http://127.0.0.\(host):\(port)\(path)")! }

    /// Clears the counters between runs.
    func resetStats() { stats.withLock { $0 = Stats() } }

    func stop() async {
        for channel in channels.withLock({ $0 }) { try? await channel.close() }
    }
}

/// Serves one connection of ``NetBenchOrigin``.
private final class NetBenchHandler: ChannelInboundHandler {
    typealias InboundIn = HTTPServerRequestPart
    typealias OutboundOut = HTTPServerResponsePart

    private let origin: @Sendable () -> NetBenchOrigin?
    private var head: HTTPRequestHead?

    init(origin: @escaping @Sendable () -> NetBenchOrigin?) { self.origin = origin }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch unwrapInboundIn(data) {
        case .head(let head): self.head = head
        case .body: break
        case .end:
            guard let head, let origin = origin() else { return }
            self.head = nil
            respond(head, origin: origin, context: context)
        }
    }

    private func respond(_ head: HTTPRequestHead, origin: NetBenchOrigin, context: ChannelHandlerContext) {
        let host = context.channel.localAddress?.ipAddress ?? "?"
        origin.stats.withLock { stats in
            stats.requests += 1
            stats.inFlight[host, default: 0] += 1
            stats.peak[host] = max(stats.peak[host, default: 0], stats.inFlight[host, default: 0])
        }
        let parts = head.uri.split(separator: "?", maxSplits: 1)
        let path = String(parts.first ?? "")
        let query = parts.count > 1 ? String(parts[1]) : ""
        var headers = HTTPHeaders()
        var status = HTTPResponseStatus.ok
        var body: ArraySlice<UInt8>
        var cutAfter: Int?
        if path == "/big" {
            body = origin.big[...]
            headers.add(name: "Content-Type", value: "image/png")
            headers.add(name: "ETag", value: "\"big-1\"")
            headers.add(name: "Accept-Ranges", value: "bytes")
            if let range = head.headers.first(name: "Range"), range.hasPrefix("bytes="), range.hasSuffix("-"),
               let start = Int(range.dropFirst(6).dropLast()), start < body.count,
               head.headers.first(name: "If-Range").map({ $0 == "\"big-1\"" }) ?? true {
                status = .partialContent
                headers.add(name: "Content-Range", value: "bytes \(start)-\(body.count - 1)/\(body.count)")
                body = body[start...]
            }
            if let fraction = query.split(separator: "=").last.flatMap({ Double($0) }), query.hasPrefix("cut="),
               origin.stats.withLock({ $0.cutsDone.insert(query).inserted }) {
                cutAfter = Int(Double(origin.big.count) * fraction)
            }
        } else if path.hasPrefix("/img/") {
            body = origin.small[...]
            headers.add(name: "Content-Type", value: "image/png")
        } else {
            status = .notFound
            body = Array("not found\n".utf8)[...]
        }
        headers.add(name: "Content-Length", value: String(body.count))
        context.write(wrapOutboundOut(.head(HTTPResponseHead(version: head.version, status: status, headers: headers))),
                      promise: nil)
        let sent = cutAfter.map { min($0, body.count) } ?? body.count
        context.write(wrapOutboundOut(.body(.byteBuffer(context.channel.allocator.buffer(bytes: body.prefix(sent))))),
                      promise: nil)
        origin.stats.withLock { $0.bytesSent += sent }
        let channel = context.channel
        let ended: EventLoopFuture<Void>
        if cutAfter != nil {
            ended = context.writeAndFlush(wrapOutboundOut(.body(.byteBuffer(channel.allocator.buffer(capacity: 0)))))
            ended.whenComplete { _ in channel.close(promise: nil) }
        } else {
            ended = context.writeAndFlush(wrapOutboundOut(.end(nil)))
        }
        ended.whenComplete { _ in origin.stats.withLock { $0.inFlight[host, default: 1] -= 1 } }
    }
}
