import NIOCore
import NIOHTTPTypes

/// Closes a connection that keeps the server waiting for a request (imgproxy's read and
/// keep-alive timeouts):
///
/// - a request must arrive whole within the read timeout of its first byte (a connection's first
///   request: of the connection's opening, so a connection that sends nothing is closed too);
/// - a kept-alive connection waits idle for its next request for the keep-alive timeout after
///   its last response.
///
/// A request being answered has no limit here (the request timeout bounds it); a request sent
/// behind it (pipelined) gets its read timeout once the answers before it are written. It sits
/// after the HTTP codec, before the cache-hit handler, so it sees every request and response; a
/// ``RequestBytesWatcher`` at the front of the pipeline tells it when a request's first bytes
/// arrive, before they make a whole request head.
final class ConnectionTimeoutHandler: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPRequestPart
    typealias InboundOut = HTTPRequestPart
    typealias OutboundIn = HTTPResponsePart
    typealias OutboundOut = HTTPResponsePart

    /// Why a connection was closed.
    enum Expiry: String {
        case readTimeout = "read_timeout"
        case keepAliveTimeout = "keep_alive_timeout"
    }

    /// What the connection waits for.
    private enum Phase {
        /// A request, or the rest of one: the read timeout runs.
        case receiving
        /// The answers to the requests read: no timeout.
        case answering
        /// A next request on an idle connection: the keep-alive timeout runs.
        case idle
    }

    private let readTimeout: TimeAmount
    private let keepAliveTimeout: TimeAmount
    private let onExpiry: (Expiry) -> Void
    private var phase = Phase.receiving
    /// Requests whose head was read and whose response is not written whole yet.
    private var open = 0
    /// A request's head was read but not its end.
    private var reading = false
    /// Bytes arrived while answers were being made, and no head of theirs was read yet.
    private var pendingBytes = false
    private var timer: Scheduled<Void>?
    private var context: ChannelHandlerContext?

    /// `onExpiry` is told why, on the event loop, before the connection is closed.
    init(readTimeout: TimeAmount, keepAliveTimeout: TimeAmount, onExpiry: @escaping (Expiry) -> Void = { _ in }) {
        self.readTimeout = readTimeout
        self.keepAliveTimeout = keepAliveTimeout
        self.onExpiry = onExpiry
    }

    func handlerAdded(context: ChannelHandlerContext) {
        self.context = context
        if context.channel.isActive { startFirstRequest() }
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        cancelTimer()
        self.context = nil
    }

    func channelActive(context: ChannelHandlerContext) {
        startFirstRequest()
        context.fireChannelActive()
    }

    func channelInactive(context: ChannelHandlerContext) {
        cancelTimer()
        context.fireChannelInactive()
    }

    /// Bytes came in (seen by ``RequestBytesWatcher`` before the HTTP decoder).
    func bytesArrived() {
        switch phase {
        case .idle: enter(.receiving)
        case .receiving: break
        case .answering: if !reading { pendingBytes = true }
        }
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch unwrapInboundIn(data) {
        case .head:
            open += 1
            reading = true
            pendingBytes = false
            if phase == .idle { enter(.receiving) }
        case .body:
            break
        case .end:
            reading = false
            if phase == .receiving { enter(open > 0 ? .answering : .idle) }
        }
        context.fireChannelRead(data)
    }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        if case .end = unwrapOutboundIn(data) {
            open = max(0, open - 1)
            // Nothing left to answer but, maybe, the request being read.
            if open - (reading ? 1 : 0) <= 0 {
                enter(reading || pendingBytes ? .receiving : .idle)
                pendingBytes = false
            }
        }
        context.write(data, promise: promise)
    }

    private func startFirstRequest() {
        guard timer == nil, open == 0, phase == .receiving else { return }
        enter(.receiving)
    }

    /// Moves to `next`, starting its timeout afresh.
    private func enter(_ next: Phase) {
        phase = next
        cancelTimer()
        guard let context, context.channel.isActive else { return }
        let (amount, expiry): (TimeAmount, Expiry)
        switch next {
        case .answering: return
        case .receiving: (amount, expiry) = (readTimeout, .readTimeout)
        case .idle: (amount, expiry) = (keepAliveTimeout, .keepAliveTimeout)
        }
        timer = context.eventLoop.assumeIsolated().scheduleTask(in: amount) { [self] in
            timer = nil
            onExpiry(expiry)
            context.close(promise: nil)
        }
    }

    private func cancelTimer() {
        timer?.cancel()
        timer = nil
    }
}

/// Tells a ``ConnectionTimeoutHandler`` when bytes arrive, from the front of the pipeline, where
/// they are seen before the HTTP decoder makes a request head of them.
final class RequestBytesWatcher: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = ByteBuffer
    typealias InboundOut = ByteBuffer

    private let timeouts: ConnectionTimeoutHandler

    init(_ timeouts: ConnectionTimeoutHandler) {
        self.timeouts = timeouts
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        timeouts.bytesArrived()
        context.fireChannelRead(data)
    }
}

@available(*, unavailable)
extension ConnectionTimeoutHandler: Sendable {}

@available(*, unavailable)
extension RequestBytesWatcher: Sendable {}
