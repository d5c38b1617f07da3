import Foundation
import Logging
import NIOCore
import Synchronization

/// How the server treats a connection: how long it may keep the server waiting for a request
/// (``ConnectionTimeoutHandler``) and how many connections are held at once. A connection beyond
/// the limit is answered 503 and closed at once, so the server keeps file descriptors for its
/// own work (sources, cache files) and a flood of connections cannot starve it of them.
struct ConnectionPolicy: Sendable {
    let readTimeout: TimeAmount
    let keepAliveTimeout: TimeAmount
    let maxConnections: Int
    let logger: Logger
    /// Connections held now.
    let count: ConnectionCount
    /// Warnings about refused connections, at most one in ``EdgeWarnings/interval``.
    let refusals: EdgeWarnings

    init(configuration: ServerConfiguration, logger: Logger) {
        readTimeout = .nanoseconds(Int64(configuration.readTimeout * 1_000_000_000))
        keepAliveTimeout = .nanoseconds(Int64(configuration.keepAliveTimeout * 1_000_000_000))
        maxConnections = configuration.maxConnections ?? Self.derivedMaxConnections(workers: configuration.workers)
        self.logger = logger
        count = ConnectionCount()
        refusals = EdgeWarnings()
    }

    /// Adds the timeout handlers to a new connection's pipeline (after the HTTP codec's
    /// `HTTPConnectionStateHandler`, `state`), or, past the connection limit, a handler that
    /// refuses it.
    func install(on channel: any Channel, after state: any ChannelHandler) throws {
        let operations = channel.pipeline.syncOperations
        let held = count.opened()
        channel.closeFuture.whenComplete { [count] _ in count.closed() }
        guard held <= maxConnections else {
            refusals.note { suppressed in
                logger.warning("connection refused: the server holds as many as it may",
                               metadata: ["connections": "\(held - 1)", "max_connections": "\(maxConnections)",
                                          "refused_since_last_warning": "\(suppressed)"])
            }
            try operations.addHandler(ConnectionRefusalHandler(), position: .first)
            return
        }
        let timeouts = ConnectionTimeoutHandler(readTimeout: readTimeout, keepAliveTimeout: keepAliveTimeout) { expiry in
            logger.debug("connection closed", metadata: ["reason": "\(expiry.rawValue)"])
        }
        try operations.addHandler(timeouts, position: .after(state))
        try operations.addHandler(RequestBytesWatcher(timeouts), position: .first)
    }

    /// Connections held at once by default: the open-file limit less a reserve for the server's
    /// own files and sockets (64 and 4 for each worker, at most half the limit).
    static func derivedMaxConnections(workers: Int) -> Int {
        var limit = rlimit()
        guard getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit) == 0, limit.rlim_cur != rlim_t.max else {
            return 1_000_000
        }
        let soft = Int(clamping: min(limit.rlim_cur, 1_000_000))
        let reserve = min(soft / 2, 64 + 4 * min(max(workers, 1), 10_000))
        return max(1, soft - reserve)
    }
}

/// The number of connections held, across event loops.
final class ConnectionCount: Sendable {
    private let value = Atomic<Int>(0)

    /// Counts a new connection; the count with it.
    func opened() -> Int { value.add(1, ordering: .relaxed).newValue }

    func closed() { value.subtract(1, ordering: .relaxed) }

    var current: Int { value.load(ordering: .relaxed) }
}

/// A warning about something that can happen thousands of times a second (a refused connection,
/// a failed accept): logged the first time, then at most once per ``interval``, with the number
/// of events since the last warning.
final class EdgeWarnings: Sendable {
    static let interval: Int64 = 10
    private let lastLogged = Atomic<Int64>(Int64.min)
    private let unlogged = Atomic<Int>(0)

    /// Calls `log` with the events not logged before this one, unless a warning went out less
    /// than ``interval`` seconds ago.
    func note(_ log: (Int) -> Void) {
        let now = Int64(NIODeadline.now().uptimeNanoseconds / 1_000_000_000)
        let last = lastLogged.load(ordering: .relaxed)
        guard last == Int64.min || now - last >= Self.interval,
              lastLogged.compareExchange(expected: last, desired: now, ordering: .relaxed).exchanged else {
            unlogged.add(1, ordering: .relaxed)
            return
        }
        log(unlogged.exchange(0, ordering: .relaxed))
    }
}

/// Answers a connection past the limit with a 503 as soon as it opens, and closes it; nothing it
/// sends is read.
final class ConnectionRefusalHandler: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = ByteBuffer

    static let response = """
        HTTP/1.1 503 Service Unavailable\r
        Content-Type: application/json\r
        Retry-After: 1\r
        Connection: close\r
        Content-Length: \(ServerError.tooManyConnections.body.count)\r
        \r
        \(String(decoding: ServerError.tooManyConnections.body, as: UTF8.self))
        """

    private var answered = false

    func handlerAdded(context: ChannelHandlerContext) {
        if context.channel.isActive { refuse(context) }
    }

    func channelActive(context: ChannelHandlerContext) {
        context.fireChannelActive()
        refuse(context)
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {}

    private func refuse(_ context: ChannelHandlerContext) {
        guard !answered else { return }
        answered = true
        context.writeAndFlush(NIOAny(ByteBuffer(string: Self.response))).assumeIsolated().whenComplete { _ in
            context.close(promise: nil)
        }
    }
}

@available(*, unavailable)
extension ConnectionRefusalHandler: Sendable {}
