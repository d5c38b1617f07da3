import Foundation

/// The safe-fetch guard's rules: which addresses a downloader may connect to. For a server that
/// fetches URLs it is given (avatars, link previews, webhooks), so that a URL cannot reach the
/// server's own network — loopback services, the cloud metadata endpoint at 169.254.169.254, a
/// database on 10.0.0.5.
///
/// Set it on ``DownloaderConfig/addressPolicy`` (off by default). Every address a request could
/// connect to — on the first request and on every redirect hop — is checked against
/// ``RestrictedRange/containing(_:)``; a host that resolves to several addresses is refused if any
/// of them is restricted, and a refusal fails the load with
/// ``WebImageError/Code/forbiddenAddress`` (2010). The allow-list lets chosen networks or host
/// names through, for a server that must reach, say, an internal image store.
public struct AddressPolicy: Hashable, Sendable {
    /// Blocks that pass even though they are restricted (for example `10.20.0.0/16`). A restricted
    /// IPv6 form that embeds an IPv4 address passes when that IPv4 address is in one of them.
    public var allowedNetworks: [IPNetwork]
    /// Host names (or address literals) that pass whatever they resolve to, compared without case
    /// and without a trailing dot. A name passes only itself, not its subdomains.
    public var allowedHosts: Set<String> {
        didSet { allowedHosts = Set(allowedHosts.map(Self.normalizedHost)) }
    }

    /// How long a host name's checked address is reused for new connections before the name is
    /// resolved and checked again (default 30 s), measured on ``DownloaderConfig/clock``. Zero
    /// resolves for every request.
    public var addressLifetime: Duration

    /// A policy that refuses every restricted range except `allowedNetworks` and `allowedHosts`.
    public init(allowedNetworks: [IPNetwork] = [], allowedHosts: Set<String> = [],
                addressLifetime: Duration = .seconds(30)) {
        self.allowedNetworks = allowedNetworks
        self.allowedHosts = Set(allowedHosts.map(Self.normalizedHost))
        self.addressLifetime = addressLifetime
    }

    /// Refuse every restricted range, with nothing allowed.
    public static var denyPrivate: AddressPolicy { AddressPolicy() }

    /// The restricted range `address` falls in, unless the allow-list lets it through; nil when a
    /// connection to it is allowed.
    public func refusal(for address: IPAddress) -> RestrictedRange? {
        guard let range = RestrictedRange.containing(address) else { return nil }
        let allowed = allowedNetworks.contains { network in
            network.contains(address) || range.embeddedIPv4.map(network.contains) == true
        }
        return allowed ? nil : range
    }

    /// Whether `host` (a name or an address literal) is on the allow-list of hosts.
    public func allowsHost(_ host: String) -> Bool {
        !allowedHosts.isEmpty && allowedHosts.contains(Self.normalizedHost(host))
    }

    /// Lowercased, without a trailing dot or IPv6 brackets; an address literal in its standard form.
    static func normalizedHost(_ host: String) -> String {
        if let address = IPAddress(host) { return address.description }
        var name = host.lowercased()
        while name.hasSuffix(".") { name.removeLast() }
        return name
    }
}
