import WebImageCodecs
import AsyncHTTPClient
import Foundation
import Logging
import NIOCore
import Synchronization

/// The safe-fetch guard's connections (``DownloaderConfig/addressPolicy``): every request is sent
/// on a client whose only route to the URL's host is an address the guard has checked.
///
/// An address literal is checked as it is and sent on the downloader's own client, which connects
/// to exactly that address. A host name is resolved once with the configured ``HostResolving``;
/// when every address of the answer passes (or the name is on the allow-list), the name is
/// *pinned*: a client of its own whose `dnsOverride` maps the name to the first checked address,
/// so its connections go there without another lookup, while TLS still sends the name (SNI) and
/// checks the certificate against it. New connections reuse the pin for
/// ``AddressPolicy/addressLifetime`` on the downloader's clock; then the name is resolved and
/// checked again. A request whose connection fails moves the pin to the next checked address of
/// the same answer. At most ``capacity`` names stay pinned; a replaced or evicted pin's client is
/// shut down once its last request has ended.
final class GuardedClients: Sendable {
    let policy: AddressPolicy
    let resolver: any HostResolving
    let logger: Logger
    /// The configuration pinned clients copy (timeouts, pool, TLS), adding their `dnsOverride`.
    private let configuration: HTTPClient.Configuration
    /// The downloader's own client, for address literals.
    private let direct: HTTPClient
    private let group: any EventLoopGroup
    private let elapsed: ElapsedTime
    /// The most names pinned at once.
    let capacity: Int
    private let state = Mutex(State())

    private struct Pin {
        let id: UInt64
        let client: HTTPClient
        /// The checked answer, and which of its addresses the client connects to.
        let addresses: [IPAddress]
        let index: Int
        let expires: Duration
        var lastUsed: Duration
    }

    private struct State {
        /// Pins by host, spelled as the HTTP client reads it from the URL (its `dnsOverride` key).
        var pins: [String: Pin] = [:]
        /// Requests in flight per pin.
        var leases: [UInt64: Int] = [:]
        /// Clients of pins no longer handed out, waiting for their last request to end.
        var retired: [UInt64: HTTPClient] = [:]
        /// Shutdowns under way, awaited by ``GuardedClients/shutdown()``.
        var closing: [UInt64: Task<Void, Never>] = [:]
        var nextID: UInt64 = 0
        var isShutDown = false
    }

    init(policy: AddressPolicy, resolver: any HostResolving, configuration: HTTPClient.Configuration,
         direct: HTTPClient, group: any EventLoopGroup, clock: any Clock<Duration>, capacity: Int = 128,
         logger: Logger) {
        self.policy = policy
        self.resolver = resolver
        self.configuration = configuration
        self.direct = direct
        self.group = group
        self.elapsed = ElapsedTime(clock)
        self.capacity = max(1, capacity)
        self.logger = logger
    }

    /// Names pinned now.
    var pinnedCount: Int { state.withLock { $0.pins.count } }

    /// A client for `url` (a request's or a redirect hop's), after the guard's check. Throws
    /// ``WebImageError/Code/forbiddenAddress`` for a restricted address, `connectionFailed` for a
    /// name that cannot be resolved. Release the lease when the response (body included) is done.
    func lease(for url: URL) async throws -> ClientLease {
        // The host exactly as the HTTP client will read it from the request's URL string.
        guard let parsed = URL(string: url.absoluteString), var host = parsed.host, !host.isEmpty else {
            throw WebImageError(.invalidURL, "The URL has no host.", url: url)
        }
        if host.hasPrefix("["), host.hasSuffix("]") { host = String(host.dropFirst().dropLast()) }
        let port = parsed.port ?? (parsed.scheme?.lowercased() == "https" ? 443 : 80)
        // SocketAddress traps on a port outside 0…65535.
        guard (1...65535).contains(port) else {
            throw WebImageError(.invalidURL, "The URL's port \(port) is not from 1 to 65535.", url: url)
        }
        if (try? SocketAddress(ipAddress: host, port: port)) != nil, let literal = IPAddress(host) {
            try check([literal], host: host, port: port, url: url)
            return ClientLease(client: direct)
        }
        if let lease = pinnedLease(host) { return lease }
        let answer: [IPAddress]
        do {
            answer = try await resolver.addresses(of: host, port: port)
        } catch is CancellationError {
            throw CancellationError()
        } catch {
            throw GuardRefusal.unresolvable(host: host, reason: "\(error)")
        }
        guard !answer.isEmpty else { throw GuardRefusal.unresolvable(host: host, reason: "no address") }
        try check(answer, host: host, port: port, url: url)
        return try pin(host, answer: answer)
    }

    /// The request on `lease` could not connect or failed before a response: later requests for its
    /// host go to the next checked address of the same answer, or resolve again after the last.
    func connectionFailed(_ lease: ClientLease) {
        guard let id = lease.pinID, let host = lease.host else { return }
        state.withLock { state in
            guard let current = state.pins[host], current.id == id else { return }
            retire(host, in: &state)
            let next = current.index + 1
            guard next < current.addresses.count, !state.isShutDown else { return }
            state.pins[host] = makePin(host, current.addresses, index: next, expires: current.expires, in: &state)
        }
        logger.debug("safe-fetch guard: moving to the next checked address", metadata: ["host": "\(host)"])
    }

    /// Shuts every pinned client down (requests still running on them fail) and waits for them.
    func shutdown() async {
        let closing = state.withLock { state -> [Task<Void, Never>] in
            state.isShutDown = true
            for host in Array(state.pins.keys) { retire(host, in: &state) }
            for (id, client) in state.retired { close(id, client, in: &state) }
            state.retired = [:]
            return Array(state.closing.values)
        }
        for task in closing { await task.value }
    }

    // MARK: - Checking

    /// Throws ``WebImageError/Code/forbiddenAddress`` when any of `addresses` is refused.
    private func check(_ addresses: [IPAddress], host: String, port: Int, url: URL) throws {
        guard !policy.allowsHost(host) else { return }
        for address in addresses {
            guard let range = policy.refusal(for: address) else { continue }
            DownloadInstrumentation.guardRefused(host: host, port: port, address: address, range: range, logger: logger)
            throw GuardRefusal.forbidden(host: host, port: port, url: url, address: address, range: range,
                                         answer: IPAddress(host) == nil ? addresses : nil)
        }
    }

    // MARK: - Pins

    private func pinnedLease(_ host: String) -> ClientLease? {
        let now = elapsed.now
        return state.withLock { state -> ClientLease? in
            guard var pin = state.pins[host] else { return nil }
            guard now < pin.expires else {
                retire(host, in: &state)
                return nil
            }
            pin.lastUsed = now
            state.pins[host] = pin
            state.leases[pin.id, default: 0] += 1
            return ClientLease(client: pin.client, pinID: pin.id, host: host, owner: self)
        }
    }

    /// Pins `host` to the first address of its checked `answer` (or joins a pin made meanwhile).
    private func pin(_ host: String, answer: [IPAddress]) throws -> ClientLease {
        let now = elapsed.now
        return try state.withLock { state -> ClientLease in
            guard !state.isShutDown else {
                throw WebImageError(.invalidDownloadOperation, "The downloader has been shut down.")
            }
            var pin: Pin
            if let current = state.pins[host], now < current.expires {
                pin = current
            } else {
                if state.pins[host] != nil { retire(host, in: &state) }
                if state.pins.count >= capacity,
                   let oldest = state.pins.min(by: { $0.value.lastUsed < $1.value.lastUsed })?.key {
                    retire(oldest, in: &state)
                }
                pin = makePin(host, answer, index: 0, expires: now + policy.addressLifetime, in: &state)
            }
            pin.lastUsed = now
            state.pins[host] = pin
            state.leases[pin.id, default: 0] += 1
            return ClientLease(client: pin.client, pinID: pin.id, host: host, owner: self)
        }
    }

    private func makePin(_ host: String, _ addresses: [IPAddress], index: Int, expires: Duration,
                         in state: inout State) -> Pin {
        var configuration = configuration
        configuration.dnsOverride = [host: addresses[index].description]
        state.nextID += 1
        let client = HTTPClient(eventLoopGroupProvider: .shared(group), configuration: configuration)
        return Pin(id: state.nextID, client: client, addresses: addresses, index: index, expires: expires,
                   lastUsed: elapsed.now)
    }

    /// Stops handing out `host`'s pin; its client closes once its last request ends.
    private func retire(_ host: String, in state: inout State) {
        guard let pin = state.pins.removeValue(forKey: host) else { return }
        if state.leases[pin.id, default: 0] == 0 {
            close(pin.id, pin.client, in: &state)
        } else {
            state.retired[pin.id] = pin.client
        }
    }

    fileprivate func release(_ id: UInt64) {
        state.withLock { state in
            let left = state.leases[id, default: 1] - 1
            state.leases[id] = left > 0 ? left : nil
            if left <= 0, let client = state.retired.removeValue(forKey: id) { close(id, client, in: &state) }
        }
    }

    private func close(_ id: UInt64, _ client: HTTPClient, in state: inout State) {
        state.closing[id] = Task { [self] in
            try? await client.shutdown()
            _ = self.state.withLock { $0.closing.removeValue(forKey: id) }
        }
    }
}

/// A client to send one request (and its redirects' drained bodies) on; ``release()`` it when the
/// response is done, so a retired pin's client can close.
struct ClientLease: Sendable {
    let client: HTTPClient
    var pinID: UInt64?
    var host: String?
    fileprivate var owner: GuardedClients?

    init(client: HTTPClient) { self.client = client }

    fileprivate init(client: HTTPClient, pinID: UInt64, host: String, owner: GuardedClients) {
        self.client = client
        self.pinID = pinID
        self.host = host
        self.owner = owner
    }

    /// The request is over.
    func release() {
        if let pinID { owner?.release(pinID) }
    }
}

/// Time on an injected clock since a fixed start, as a `Duration` (so a clock of any instant type
/// can be stored).
struct ElapsedTime: Sendable {
    private let read: @Sendable () -> Duration

    init<C: Clock<Duration>>(_ clock: C) {
        let start = clock.now
        read = { start.duration(to: clock.now) }
    }

    var now: Duration { read() }
}
