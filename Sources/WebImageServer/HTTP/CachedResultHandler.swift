import HTTPTypes
import NIOCore
import NIOHTTPTypes

/// Answers a GET for a result kept in memory on the connection's event loop, as the request's
/// parts are decoded, without handing it to the server's async request handling: a result-cache
/// hit is a lookup and a write of bytes encoded before.
///
/// Everything else goes on to the server's handler unchanged. A hit is answered here only while no
/// earlier request of the connection is still being answered there, so responses keep the order
/// of their requests.
final class CachedResultHandler: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPRequestPart
    typealias InboundOut = HTTPRequestPart
    typealias OutboundIn = HTTPResponsePart
    typealias OutboundOut = HTTPResponsePart

    /// The answer for a request head, if it is a hit (see ``ImageServer/cachedAnswer(to:)``).
    private let answer: (HTTPRequest) -> CachedAnswer?
    /// Requests passed on whose response has not ended yet.
    private var passedOn = 0
    /// True from a head answered here to the end of its request.
    private var dropping = false

    init(answer: @escaping (HTTPRequest) -> CachedAnswer?) {
        self.answer = answer
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let part = unwrapInboundIn(data)
        switch part {
        case .head(let head):
            if passedOn == 0, let hit = answer(head) {
                dropping = true
                context.write(wrapOutboundOut(.head(hit.head)), promise: nil)
                if let body = hit.body { context.write(wrapOutboundOut(.body(body)), promise: nil) }
                context.writeAndFlush(wrapOutboundOut(.end(nil)), promise: nil)
                return
            }
            passedOn += 1
            context.fireChannelRead(data)
        case .body:
            if !dropping { context.fireChannelRead(data) }
        case .end:
            if dropping {
                dropping = false
            } else {
                context.fireChannelRead(data)
            }
        }
    }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        if case .end = unwrapOutboundIn(data) { passedOn = max(0, passedOn - 1) }
        context.write(data, promise: promise)
    }
}

/// A response decided on the event loop: its head and its body (nil: none).
struct CachedAnswer {
    let head: HTTPResponse
    let body: ByteBuffer?
}
