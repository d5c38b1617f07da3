import WebImageCodecs
import Foundation
import Logging
import NIOCore
import NIOPosix
import NIOSOCKS
import Synchronization

/// The safe-fetch guard's relay: a SOCKS5 server on 127.0.0.1 inside the process, the proxy of the
/// downloader's HTTP client when ``DownloaderConfig/addressPolicy`` is set.
///
/// The client hands every connection (first request and redirect hops, HTTP and HTTPS) to the
/// relay as a host name or address literal. The relay resolves a name once with the configured
/// ``HostResolving``, checks every address it got against the ``AddressPolicy``, and connects to
/// those checked addresses (in order, the first that answers), never to the name, so no second
/// lookup can move the connection. A refusal answers SOCKS "connection not allowed by ruleset"
/// and is recorded here, so the download's error can name the host and the address. TLS runs end
/// to end between the client and the origin, through the relay.
final class GuardRelay: Sendable {
    /// The port the relay listens on, on 127.0.0.1.
    let port: Int
    let policy: AddressPolicy
    let resolver: any HostResolving
    /// How long connecting to the origin may take.
    let connectTimeout: TimeAmount
    let logger: Logger
    private let state = Mutex(State())

    private struct State {
        /// The listener's channel, once NIO has taken the bound socket over.
        var listening: EventLoopFuture<Channel>?
        /// Accepted and outbound connections, closed by ``shutdown()``.
        var channels: [ObjectIdentifier: Channel] = [:]
        var failures = RelayFailureLog()
        var startFailure: String?
        var isShutDown = false
    }

    private init(port: Int, policy: AddressPolicy, resolver: any HostResolving, connectTimeout: TimeAmount,
                 logger: Logger) {
        self.port = port
        self.policy = policy
        self.resolver = resolver
        self.connectTimeout = connectTimeout
        self.logger = logger
    }

    /// Binds 127.0.0.1 on a port the kernel picks and starts serving on `group`. The socket is
    /// bound and listening when this returns, so the port can go into the client's configuration
    /// at once; throws when it cannot be bound.
    static func start(policy: AddressPolicy, resolver: any HostResolving, group: any EventLoopGroup,
                      connectTimeout: TimeAmount, logger: Logger) throws -> GuardRelay {
        let socket = try LoopbackListener.open()
        let relay = GuardRelay(port: socket.port, policy: policy, resolver: resolver,
                               connectTimeout: connectTimeout, logger: logger)
        let listening = ServerBootstrap(group: group)
            .childChannelOption(.socketOption(.tcp_nodelay), value: 1)
            .childChannelInitializer { channel in
                guard relay.track(channel) else { return channel.close() }
                return channel.eventLoop.makeCompletedFuture {
                    let handshake = SOCKSServerHandshakeHandler()
                    try channel.pipeline.syncOperations.addHandler(handshake)
                    try channel.pipeline.syncOperations.addHandler(GuardRelayHandler(relay: relay, handshake: handshake))
                }
            }
            .withBoundSocket(socket.descriptor)
        relay.state.withLock { $0.listening = listening }
        listening.whenFailure { error in relay.failedToStart(error) }
        return relay
    }

    /// Why the relay is not serving, when its listener failed to start.
    var startFailure: String? { state.withLock { $0.startFailure } }

    private func failedToStart(_ error: any Error) {
        state.withLock { $0.startFailure = "\(error)" }
        logger.error("the safe-fetch guard's relay did not start", metadata: ["error": "\(error)"])
    }

    /// Keeps `channel` until it closes, so ``shutdown()`` can close it; false after a shutdown.
    func track(_ channel: Channel) -> Bool {
        let id = ObjectIdentifier(channel)
        let admitted = state.withLock { state -> Bool in
            guard !state.isShutDown else { return false }
            state.channels[id] = channel
            return true
        }
        guard admitted else { return false }
        channel.closeFuture.whenComplete { [self] _ in _ = state.withLock { $0.channels.removeValue(forKey: id) } }
        return true
    }

    /// Stops listening and closes every connection through the relay.
    func shutdown() async {
        let (listening, channels) = state.withLock { state in
            state.isShutDown = true
            return (state.listening, Array(state.channels.values))
        }
        if let server = try? await listening?.get() { try? await server.close() }
        for channel in channels { try? await channel.close() }
    }

    // MARK: - Decisions

    /// Where a connection to `target` may go: the checked addresses to try in order, or the reply
    /// that refuses it. Resolves a name once.
    func decide(_ target: RelayTarget) async -> RelayDecision {
        if let literal = target.literal { return check([literal], target: target) }
        let answer: [IPAddress]
        do {
            answer = try await resolver.addresses(of: target.host, port: target.port)
        } catch {
            return refuse(target, .unresolvable("\(error)"), reply: .hostUnreachable)
        }
        guard !answer.isEmpty else {
            return refuse(target, .unresolvable("the resolver returned no address"), reply: .hostUnreachable)
        }
        return check(answer, target: target)
    }

    /// The decision for `target` without a lookup, when it is an address literal.
    func immediateDecision(_ target: RelayTarget) -> RelayDecision? {
        target.literal.map { check([$0], target: target) }
    }

    private func check(_ addresses: [IPAddress], target: RelayTarget) -> RelayDecision {
        if !policy.allowsHost(target.host) {
            for address in addresses {
                if let range = policy.refusal(for: address) {
                    DownloadInstrumentation.guardRefused(host: target.host, port: target.port, address: address,
                                                         range: range, logger: logger)
                    return refuse(target, .forbidden(address: address, range: range, answer: addresses),
                                  reply: .notAllowed)
                }
            }
        }
        let sockets = addresses.compactMap { try? SocketAddress(ipAddress: $0.description, port: target.port) }
        guard !sockets.isEmpty else {
            return refuse(target, .unreachable("no address to connect to"), reply: .addressUnsupported)
        }
        return .connect(sockets)
    }

    /// Records why `target` failed and returns the refusal with `reply`.
    func refuse(_ target: RelayTarget, _ failure: RelayFailure, reply: SOCKSServerReply) -> RelayDecision {
        state.withLock { $0.failures.record(failure, for: target.key) }
        return .refuse(reply)
    }

    /// Records that connecting to every checked address of `target` failed.
    func connectFailed(_ target: RelayTarget, error: any Error) {
        state.withLock { $0.failures.record(.unreachable("\(error)"), for: target.key) }
    }

    /// The latest recorded failure for connections to `host`:`port`.
    func failure(host: String, port: Int) -> RelayFailure? {
        let key = RelayTarget(host: host, port: port).key
        return state.withLock { $0.failures[key] }
    }
}

/// Where a client asked the relay to connect.
struct RelayTarget: Sendable {
    /// The host as the client sent it, normalised (``AddressPolicy/normalizedHost(_:)``).
    let host: String
    let port: Int
    /// The address, when the host is an address literal.
    let literal: IPAddress?

    init(host: String, port: Int) {
        self.host = AddressPolicy.normalizedHost(host)
        self.port = port
        self.literal = IPAddress(host)
    }

    /// `host:port`, the key failures are recorded under.
    var key: String { "\(host):\(port)" }
}

/// What the relay does with one connection.
enum RelayDecision: Sendable {
    /// Connect to the first of these addresses that answers (each one checked).
    case connect([SocketAddress])
    /// Answer with this SOCKS reply and close.
    case refuse(SOCKSServerReply)
}

/// Why the relay did not connect.
enum RelayFailure: Sendable, Equatable {
    /// An address of the answer is restricted (the first such one), with the whole answer.
    case forbidden(address: IPAddress, range: RestrictedRange, answer: [IPAddress])
    /// The name could not be resolved.
    case unresolvable(String)
    /// No checked address answered.
    case unreachable(String)
}

/// The latest failure per `host:port`, for the error message; bounded, oldest dropped first.
struct RelayFailureLog {
    private var entries: [String: RelayFailure] = [:]
    private var order: [String] = []
    static let capacity = 256

    mutating func record(_ failure: RelayFailure, for key: String) {
        if entries.updateValue(failure, forKey: key) == nil {
            order.append(key)
            if order.count > Self.capacity { entries[order.removeFirst()] = nil }
        }
    }

    subscript(key: String) -> RelayFailure? { entries[key] }
}
