import HTTPTypes
import Hummingbird
import HummingbirdCore
import Logging
import NIOCore

/// Hummingbird's HTTP/1 child channel with a ``CachedResultHandler`` placed right after its
/// connection-state handler, so that handler sees every request and response, those answered
/// from the result cache too: a graceful shutdown closes the connection only between requests.
/// With a ``ConnectionPolicy``, its timeout handlers go between the two (they too see every
/// request and response), or, past the connection limit, the connection is refused. A
/// ``ClientDepartureHandler`` first in the pipeline tells ``ClientDepartures`` when the client leaves.
struct CachedResultChannel: ServerChildChannel {
    typealias Value = HTTP1Channel.Value

    let http1: HTTP1Channel
    var connections: ConnectionPolicy?
    let answer: @Sendable (HTTPRequest) -> CachedAnswer?
    let departures: ClientDepartures

    func setup(channel: any Channel, logger: Logger) -> EventLoopFuture<Value> {
        http1.setup(channel: channel, logger: logger).flatMapThrowing { value in
            let operations = channel.pipeline.syncOperations
            let state = try operations.handler(type: HTTPConnectionStateHandler.self)
            try operations.addHandler(CachedResultHandler(answer: answer), position: .after(state))
            try operations.addHandler(ClientDepartureHandler(departures: departures), position: .first)
            try connections?.install(on: channel, after: state)
            return value
        }
    }

    func handle(value: Value, logger: Logger) async {
        await http1.handle(value: value, logger: logger)
    }
}

extension HTTPServerBuilder {
    /// HTTP/1 with result-cache hits answered on the event loop by `answer`, connections treated
    /// as `connections` says, and `departures` told when each connection's client leaves.
    static func http1(configuration: HTTP1Channel.Configuration, connections: ConnectionPolicy,
                      departures: ClientDepartures,
                      cachedAnswer answer: @escaping @Sendable (HTTPRequest) -> CachedAnswer?) -> HTTPServerBuilder {
        HTTPServerBuilder { responder in
            CachedResultChannel(http1: HTTP1Channel(responder: responder, configuration: configuration),
                                connections: connections, answer: answer, departures: departures)
        }
    }
}
