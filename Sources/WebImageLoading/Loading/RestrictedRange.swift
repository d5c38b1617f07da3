import Foundation

/// An address range the safe-fetch guard refuses (``AddressPolicy``), and why: blocks that reach
/// the machine itself, its local networks, or no single public host.
///
/// | kind | IPv4 | IPv6 | why |
/// | --- | --- | --- | --- |
/// | ``Kind/unspecified`` | 0.0.0.0/8 | ::/128 | "this host": a connection to it reaches the machine itself |
/// | ``Kind/loopback`` | 127.0.0.0/8 | ::1/128 | the machine's own services |
/// | ``Kind/privateUse`` | 10.0.0.0/8, 172.16.0.0/12, 192.168.0.0/16 | fc00::/7 (unique local) | internal networks (RFC 1918, RFC 4193) |
/// | ``Kind/sharedAddressSpace`` | 100.64.0.0/10 | – | carrier-grade NAT, often a provider's internal network (RFC 6598) |
/// | ``Kind/linkLocal`` | 169.254.0.0/16 | fe80::/10 | the local link, including cloud metadata at 169.254.169.254 |
/// | ``Kind/siteLocal`` | – | fec0::/10 | the deprecated IPv6 site-local block, still routed inside some sites |
/// | ``Kind/protocolAssignments`` | 192.0.0.0/24 | – | IETF protocol assignments; some clouds serve metadata there (192.0.0.192) |
/// | ``Kind/benchmarking`` | 198.18.0.0/15 | – | benchmarking, used inside some networks, never a public host |
/// | ``Kind/multicast`` | 224.0.0.0/4 | ff00::/8 | groups, not a host |
/// | ``Kind/reserved`` | 240.0.0.0/4 (with 255.255.255.255) | – | reserved and the limited broadcast, never a public host |
/// | ``Kind/localTranslation`` | – | 64:ff9b:1::/48 | local-use IPv4/IPv6 translation (RFC 8215): what it reaches is the local network's choice |
///
/// IPv6 forms that carry an IPv4 address are judged by that address, so none of the blocks above
/// can be reached through them: IPv4-mapped `::ffff:0:0/96`, IPv4-translated `::ffff:0:0:0/96`,
/// IPv4-compatible `::/96`, NAT64 `64:ff9b::/96`, 6to4 `2002::/16`, and Teredo `2001::/32` (its
/// server and its client address).
public struct RestrictedRange: Hashable, Sendable, CustomStringConvertible {
    /// What a restricted block is for.
    public enum Kind: String, Sendable, CaseIterable {
        /// 0.0.0.0/8 and ::.
        case unspecified
        /// 127.0.0.0/8 and ::1.
        case loopback
        /// RFC 1918 and IPv6 unique local addresses.
        case privateUse
        /// 100.64.0.0/10, carrier-grade NAT.
        case sharedAddressSpace
        /// 169.254.0.0/16 and fe80::/10.
        case linkLocal
        /// fec0::/10.
        case siteLocal
        /// 192.0.0.0/24.
        case protocolAssignments
        /// 198.18.0.0/15.
        case benchmarking
        /// 224.0.0.0/4 and ff00::/8.
        case multicast
        /// 240.0.0.0/4, including 255.255.255.255.
        case reserved
        /// 64:ff9b:1::/48.
        case localTranslation
    }

    /// What the block is for.
    public let kind: Kind
    /// The restricted block the address (or the IPv4 address it embeds) is in.
    public let network: IPNetwork
    /// The IPv4 address an IPv6 address carries, when that is what put it in ``network``.
    public let embeddedIPv4: IPAddress?
    /// The IPv6 form that carried ``embeddedIPv4`` (for example `::ffff:0:0/96`).
    public let embedding: IPNetwork?

    /// "loopback 127.0.0.0/8", with "inside IPv4-mapped ::ffff:0:0/96" for an embedded address.
    public var description: String {
        var text = "\(kind.rawValue) \(network)"
        if let embeddedIPv4, let embedding { text += " (\(embeddedIPv4) inside \(embedding))" }
        return text
    }

    /// The restricted block `address` is in, or nil for an address a public host can have.
    public static func containing(_ address: IPAddress) -> RestrictedRange? {
        let table = address.isIPv4 ? ipv4 : ipv6
        if let (network, kind) = table.first(where: { $0.0.contains(address) }) {
            return RestrictedRange(kind: kind, network: network, embeddedIPv4: nil, embedding: nil)
        }
        guard !address.isIPv4 else { return nil }
        for (form, offsets) in embeddings where form.contains(address) {
            for (offset, inverted) in offsets {
                let inner = address.embeddedIPv4(at: offset, inverted: inverted)
                if let found = containing(inner) {
                    return RestrictedRange(kind: found.kind, network: found.network, embeddedIPv4: inner, embedding: form)
                }
            }
        }
        return nil
    }

    private static func block(_ cidr: String) -> IPNetwork { IPNetwork(cidr)! }

    private static let ipv4: [(IPNetwork, Kind)] = [
        (block("0.0.0.0/8"), .unspecified),
        (block("127.0.0.0/8"), .loopback),
        (block("10.0.0.0/8"), .privateUse),
        (block("172.16.0.0/12"), .privateUse),
        (block("192.168.0.0/16"), .privateUse),
        (block("100.64.0.0/10"), .sharedAddressSpace),
        (block("169.254.0.0/16"), .linkLocal),
        (block("192.0.0.0/24"), .protocolAssignments),
        (block("198.18.0.0/15"), .benchmarking),
        (block("224.0.0.0/4"), .multicast),
        (block("240.0.0.0/4"), .reserved),
    ]

    private static let ipv6: [(IPNetwork, Kind)] = [
        (block("::/128"), .unspecified),
        (block("::1/128"), .loopback),
        (block("fc00::/7"), .privateUse),
        (block("fe80::/10"), .linkLocal),
        (block("fec0::/10"), .siteLocal),
        (block("ff00::/8"), .multicast),
        (block("64:ff9b:1::/48"), .localTranslation),
    ]

    /// IPv6 forms carrying IPv4 addresses, with where each carried address sits (byte offset,
    /// and whether its bits are inverted, as Teredo's client address is).
    private static let embeddings: [(IPNetwork, [(Int, Bool)])] = [
        (block("::ffff:0:0/96"), [(12, false)]),
        (block("::ffff:0:0:0/96"), [(12, false)]),
        (block("::/96"), [(12, false)]),
        (block("64:ff9b::/96"), [(12, false)]),
        (block("2002::/16"), [(2, false)]),
        (block("2001::/32"), [(4, false), (12, true)]),
    ]
}
