import NIOCore
import Synchronization

/// The work of a request whose client has gone is stopped: each connection's
/// ``ClientDepartureHandler`` reports when its client closes the connection or ends its input,
/// and the request running on it then has its task cancelled (its wait for a result ends; the
/// result's job is cancelled when nobody else waits for it, which stops its decode, transform
/// or encode at the next row block or frame).
final class ClientDepartures: Sendable {
    private struct Connection {
        var left = false
        /// Cancels the request running on the connection (HTTP/1 answers one at a time).
        var cancelRequest: (@Sendable () -> Void)?
    }

    private let connections = Mutex<[ObjectIdentifier: Connection]>([:])

    /// Connections being watched (tests look at it).
    var count: Int { connections.withLock { $0.count } }

    /// `work`'s value, run as the request on `channel`; throws `CancellationError` when the
    /// client left before it ended, or when the calling task is cancelled.
    func run<T: Sendable>(on channel: any Channel, _ work: @escaping @Sendable () async throws -> T) async throws -> T {
        let task = Task { try await work() }
        let id = ObjectIdentifier(channel)
        let left = connections.withLock { connections -> Bool in
            guard var connection = connections[id] else { return false }
            if connection.left { return true }
            connection.cancelRequest = { task.cancel() }
            connections[id] = connection
            return false
        }
        if left { task.cancel() }
        defer { connections.withLock { $0[id]?.cancelRequest = nil } }
        return try await withTaskCancellationHandler {
            try await task.value
        } onCancel: {
            task.cancel()
        }
    }

    /// A connection opened; its requests can be stopped from now on.
    func opened(_ channel: ObjectIdentifier) {
        connections.withLock { $0[channel] = Connection() }
    }

    /// The client of a connection left (its input ended); `closed` once the connection is gone.
    func left(_ channel: ObjectIdentifier, closed: Bool) {
        let cancel = connections.withLock { connections -> (@Sendable () -> Void)? in
            let cancel = connections[channel]?.cancelRequest
            if closed {
                connections[channel] = nil
            } else {
                connections[channel]?.left = true
                connections[channel]?.cancelRequest = nil
            }
            return cancel
        }
        cancel?()
    }
}

/// Tells ``ClientDepartures`` when its connection's client leaves: the input ends (the client
/// closed or half-closed) or the connection closes. Everything passes through unchanged.
final class ClientDepartureHandler: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = NIOAny

    private let departures: ClientDepartures

    init(departures: ClientDepartures) {
        self.departures = departures
    }

    func handlerAdded(context: ChannelHandlerContext) {
        departures.opened(ObjectIdentifier(context.channel))
    }

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        if let event = event as? ChannelEvent, case .inputClosed = event {
            departures.left(ObjectIdentifier(context.channel), closed: false)
        }
        context.fireUserInboundEventTriggered(event)
    }

    func channelInactive(context: ChannelHandlerContext) {
        departures.left(ObjectIdentifier(context.channel), closed: true)
        context.fireChannelInactive()
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        departures.left(ObjectIdentifier(context.channel), closed: true)
    }
}
