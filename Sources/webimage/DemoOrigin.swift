import Foundation
import NIOCore
import NIOHTTP1
import NIOPosix
import Synchronization

/// A minimal HTTP/1.1 server on 127.0.0.1 that serves the demo gallery from memory, with
/// keep-alive, so the demo downloads over a real socket with no network.
final class DemoOrigin: Sendable {
    /// The files by request path.
    let files: [String: DemoItem]
    /// Body bytes sent so far (for "bytes downloaded").
    let bytesServed = Atomic<Int>(0)
    /// Requests answered so far.
    let requestsServed = Atomic<Int>(0)
    private let channel: Channel

    private init(files: [String: DemoItem], channel: Channel) {
        self.files = files
        self.channel = channel
    }

    /// Binds an ephemeral port on 127.0.0.1 and starts serving `items`.
    static func start(serving items: [DemoItem]) async throws -> DemoOrigin {
        let files = Dictionary(items.map { ($0.path, $0) }, uniquingKeysWith: { first, _ in first })
        let stats = DemoOriginStats()
        let channel = try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
            .childChannelOption(.socketOption(.tcp_nodelay), value: 1)
            .childChannelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.configureHTTPServerPipeline(withErrorHandling: true)
                    try channel.pipeline.syncOperations.addHandler(DemoOriginHandler(files: files, stats: stats))
                }
            }
            .bind(host: "127.0.0.1", port: 0).get()
        let origin = DemoOrigin(files: files, channel: channel)
        stats.origin.withLock { $0 = origin }
        return origin
    }

    /// `http://127.0.0.1:<port>`.
    var baseURL: String { "http://127.0.0.1:\(channel.localAddress?.port ?? 0)" }

    /// The URL of `item`.
    func url(for item: DemoItem) -> URL {
        URL(string: baseURL + item.path)!
    }

    /// Stops listening; open keep-alive connections close when the client goes away.
    func stop() async {
        try? await channel.close()
    }
}

/// Lets handlers, created before the origin object exists, count into it.
private final class DemoOriginStats: Sendable {
    let origin = Mutex<DemoOrigin?>(nil)

    func record(bytes: Int) {
        guard let origin = origin.withLock({ $0 }) else { return }
        origin.bytesServed.add(bytes, ordering: .relaxed)
        origin.requestsServed.add(1, ordering: .relaxed)
    }
}

/// Answers each request on one connection: the file for its path (GET and HEAD) or 404.
private final class DemoOriginHandler: ChannelInboundHandler {
    typealias InboundIn = HTTPServerRequestPart
    typealias OutboundOut = HTTPServerResponsePart

    private let files: [String: DemoItem]
    private let stats: DemoOriginStats
    private var request: HTTPRequestHead?

    init(files: [String: DemoItem], stats: DemoOriginStats) {
        self.files = files
        self.stats = stats
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch unwrapInboundIn(data) {
        case .head(let head): request = head
        case .body: break
        case .end:
            guard let head = request else { return }
            request = nil
            respond(to: head, context: context)
        }
    }

    private func respond(to head: HTTPRequestHead, context: ChannelHandlerContext) {
        let path = head.uri.split(separator: "?", maxSplits: 1).first.map(String.init) ?? head.uri
        let file = files[path]
        let body: [UInt8] = file.map { [UInt8]($0.data) } ?? Array("not found\n".utf8)
        var headers = HTTPHeaders()
        headers.add(name: "Content-Type", value: file?.contentType ?? "text/plain")
        headers.add(name: "Content-Length", value: String(body.count))
        headers.add(name: "Cache-Control", value: "max-age=3600")
        if !head.isKeepAlive { headers.add(name: "Connection", value: "close") }
        let status: HTTPResponseStatus = file == nil ? .notFound : .ok
        context.write(wrapOutboundOut(.head(HTTPResponseHead(version: head.version, status: status, headers: headers))),
                      promise: nil)
        if head.method != .HEAD {
            context.write(wrapOutboundOut(.body(.byteBuffer(context.channel.allocator.buffer(bytes: body)))), promise: nil)
            stats.record(bytes: body.count)
        }
        let done = context.writeAndFlush(wrapOutboundOut(.end(nil)))
        if !head.isKeepAlive {
            let channel = context.channel
            done.whenComplete { _ in channel.close(promise: nil) }
        }
    }
}
