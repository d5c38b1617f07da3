import HTTPTypes
import Hummingbird
import HummingbirdCore
import Logging
import NIOCore

/// Hummingbird's HTTP/1 child channel with a ``CachedResultHandler`` placed right after its
/// connection-state handler, so that handler sees every request and response, those answered
/// from the result cache too: the idle timeout counts them as activity, and a graceful shutdown
/// closes the connection only between requests.
struct CachedResultChannel: ServerChildChannel {
    typealias Value = HTTP1Channel.Value

    let http1: HTTP1Channel
    let answer: @Sendable (HTTPRequest) -> CachedAnswer?

    func setup(channel: any Channel, logger: Logger) -> EventLoopFuture<Value> {
        http1.setup(channel: channel, logger: logger).flatMapThrowing { value in
            let operations = channel.pipeline.syncOperations
            let state = try operations.handler(type: HTTPConnectionStateHandler.self)
            try operations.addHandler(CachedResultHandler(answer: answer), position: .after(state))
            return value
        }
    }

    func handle(value: Value, logger: Logger) async {
        await http1.handle(value: value, logger: logger)
    }
}

extension HTTPServerBuilder {
    /// HTTP/1 with result-cache hits answered on the event loop by `answer`.
    static func http1(configuration: HTTP1Channel.Configuration,
                      cachedAnswer answer: @escaping @Sendable (HTTPRequest) -> CachedAnswer?) -> HTTPServerBuilder {
        HTTPServerBuilder { responder in
            CachedResultChannel(http1: HTTP1Channel(responder: responder, configuration: configuration), answer: answer)
        }
    }
}
