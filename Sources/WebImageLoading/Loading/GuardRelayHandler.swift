import Foundation
import NIOCore
import NIOPosix
import NIOSOCKS

/// One connection to the relay: answers the SOCKS5 greeting (no authentication), takes the
/// CONNECT request, asks ``GuardRelay`` for a decision, and either refuses or connects to the
/// checked addresses and glues the two connections together (``RelayGlueHandler``).
///
/// Lives on the accepted channel's event loop; the outbound connection uses the same loop, so the
/// glue never crosses threads.
final class GuardRelayHandler: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = ClientMessage
    typealias OutboundOut = ServerMessage

    private let relay: GuardRelay
    private let handshake: SOCKSServerHandshakeHandler
    /// Set once the client's connection has gone: a decision or connect that completes later
    /// closes what it made instead of using the context.
    private var isClosed = false

    init(relay: GuardRelay, handshake: SOCKSServerHandshakeHandler) {
        self.relay = relay
        self.handshake = handshake
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        // As a closed channel's handlers leave, the handshake handler passes on the bytes it held
        // back, raw: nothing to do with them.
        guard !isClosed else { return }
        switch unwrapInboundIn(data) {
        case .greeting(let greeting):
            let accepted = greeting.methods.contains(.noneRequired)
            context.writeAndFlush(wrapOutboundOut(.selectedAuthenticationMethod(
                .init(method: accepted ? .noneRequired : .noneAcceptable))), promise: nil)
            if !accepted { context.close(promise: nil) }
        case .request(let request):
            guard request.command == .connect else { return reply(.commandUnsupported, context: context) }
            let target: RelayTarget
            switch request.addressType {
            case .domain(let host, let port):
                target = RelayTarget(host: host, port: port)
            case .address(let address):
                guard let host = address.ipAddress, let port = address.port else {
                    return reply(.addressUnsupported, context: context)
                }
                target = RelayTarget(host: host, port: port)
            }
            if let decision = relay.immediateDecision(target) {
                return act(decision, target: target, context: context)
            }
            let relay = relay
            let decided = context.eventLoop.makePromise(of: RelayDecision.self)
            decided.completeWithTask { await relay.decide(target) }
            decided.futureResult.assumeIsolated().whenSuccess { decision in
                self.act(decision, target: target, context: context)
            }
        case .authenticationData:
            context.close(promise: nil)
        }
    }

    func channelInactive(context: ChannelHandlerContext) {
        isClosed = true
        context.fireChannelInactive()
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        isClosed = true
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        context.close(promise: nil)
    }

    private func act(_ decision: RelayDecision, target: RelayTarget, context: ChannelHandlerContext) {
        guard !isClosed else { return }
        switch decision {
        case .refuse(let code):
            reply(code, context: context)
        case .connect(let addresses):
            connect(addresses[...], target: target, context: context)
        }
    }

    /// Connects to the first of `addresses` that answers, on this channel's event loop.
    private func connect(_ addresses: ArraySlice<SocketAddress>, target: RelayTarget, context: ChannelHandlerContext) {
        guard let address = addresses.first else { return }
        ClientBootstrap(group: context.eventLoop)
            .connectTimeout(relay.connectTimeout)
            .channelOption(.socketOption(.tcp_nodelay), value: 1)
            .connect(to: address)
            .assumeIsolated()
            .whenComplete { result in
                switch result {
                case .success(let outbound):
                    guard !self.isClosed, self.relay.track(outbound) else {
                        outbound.close(promise: nil)
                        return
                    }
                    self.glue(context: context, to: outbound)
                case .failure(let error):
                    guard !self.isClosed else { return }
                    if addresses.count > 1 {
                        self.connect(addresses.dropFirst(), target: target, context: context)
                    } else {
                        self.relay.connectFailed(target, error: error)
                        self.reply(Self.reply(for: error), context: context)
                    }
                }
            }
    }

    /// Answers success, then hands both connections to a glue pair; the SOCKS handlers leave.
    private func glue(context: ChannelHandlerContext, to outbound: Channel) {
        let (inboundGlue, outboundGlue) = RelayGlueHandler.pair()
        do {
            try outbound.pipeline.syncOperations.addHandler(outboundGlue)
            let bound = outbound.localAddress ?? Self.unspecified
            context.writeAndFlush(wrapOutboundOut(.response(SOCKSResponse(reply: .succeeded,
                                                                          boundAddress: .address(bound)))),
                                  promise: nil)
            let pipeline = context.pipeline.syncOperations
            try pipeline.addHandler(inboundGlue)
            pipeline.removeHandler(context: context, promise: nil)
            // Bytes the handshake handler held back reach the glue as it leaves.
            pipeline.removeHandler(handshake, promise: nil)
            outbound.flush()
        } catch {
            outbound.close(promise: nil)
            context.close(promise: nil)
        }
    }

    /// Sends a failure `code` and closes.
    private func reply(_ code: SOCKSServerReply, context: ChannelHandlerContext) {
        context.writeAndFlush(wrapOutboundOut(.response(SOCKSResponse(reply: code, boundAddress: .address(Self.unspecified)))))
            .assumeIsolated()
            .whenComplete { _ in context.close(promise: nil) }
    }

    private static func reply(for error: any Error) -> SOCKSServerReply {
        if case ChannelError.connectTimeout = error { return .hostUnreachable }
        if let io = error as? IOError, io.errnoCode == ENETUNREACH { return .networkUnreachable }
        return .refused
    }

    private static let unspecified = try! SocketAddress(ipAddress: "0.0.0.0", port: 0)
}
