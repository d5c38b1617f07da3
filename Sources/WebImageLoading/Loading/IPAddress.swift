import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// An IPv4 or IPv6 address: what the safe-fetch guard (``AddressPolicy``) checks before a
/// connection is made.
public struct IPAddress: Hashable, Sendable, CustomStringConvertible {
    /// The address in network byte order: 4 bytes for IPv4, 16 for IPv6.
    public let bytes: [UInt8]

    /// The address with these bytes (4 for IPv4, 16 for IPv6), or nil for any other count.
    public init?(bytes: [UInt8]) {
        guard bytes.count == 4 || bytes.count == 16 else { return nil }
        self.bytes = bytes
    }

    /// Parses dotted-quad IPv4 (`192.0.2.1`) or IPv6 text (`2001:db8::1`, `::ffff:10.0.0.1`).
    /// Square brackets around IPv6 and a zone (`%eth0`) are ignored. Nil for anything else,
    /// including the legacy IPv4 forms (`127.1`, `0x7f000001`): a name like that is looked up, and
    /// what the lookup answers is checked.
    public init?(_ text: String) {
        var text = Substring(text)
        if text.hasPrefix("["), text.hasSuffix("]") { text = text.dropFirst().dropLast() }
        if let zone = text.firstIndex(of: "%") { text = text[..<zone] }
        guard !text.isEmpty, text.count <= 45 else { return nil }
        let literal = String(text)
        if literal.contains(":") {
            var address = in6_addr()
            guard inet_pton(AF_INET6, literal, &address) == 1 else { return nil }
            self.bytes = withUnsafeBytes(of: &address) { Array($0) }
        } else {
            var address = in_addr()
            guard inet_pton(AF_INET, literal, &address) == 1 else { return nil }
            self.bytes = withUnsafeBytes(of: &address) { Array($0) }
        }
    }

    /// True for an IPv4 address.
    public var isIPv4: Bool { bytes.count == 4 }

    /// The standard text form: dotted quad, or compressed lowercase IPv6.
    public var description: String {
        var buffer = [CChar](repeating: 0, count: Int(INET6_ADDRSTRLEN))
        let family = isIPv4 ? AF_INET : AF_INET6
        let written = bytes.withUnsafeBytes { raw in
            inet_ntop(family, raw.baseAddress, &buffer, socklen_t(buffer.count))
        }
        guard written != nil else { return bytes.map(String.init).joined(separator: ".") }
        return String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// The 4 bytes at `offset`, as an IPv4 address (for the IPv6 forms that embed one).
    func embeddedIPv4(at offset: Int, inverted: Bool = false) -> IPAddress {
        let slice = bytes[offset ..< offset + 4].map { inverted ? ~$0 : $0 }
        return IPAddress(bytes: slice)!
    }
}

/// A block of addresses in CIDR notation (`10.0.0.0/8`, `fd00::/8`): an entry of the safe-fetch
/// guard's allow-list, and the ranges it refuses.
public struct IPNetwork: Hashable, Sendable, CustomStringConvertible {
    /// The first address of the block (the bits past the prefix are zero).
    public let address: IPAddress
    /// How many leading bits every address of the block shares (0…32 for IPv4, 0…128 for IPv6).
    public let prefixLength: Int

    /// The block of `prefixLength` leading bits of `address`; nil when the length does not fit
    /// the address family.
    public init?(address: IPAddress, prefixLength: Int) {
        guard prefixLength >= 0, prefixLength <= address.bytes.count * 8 else { return nil }
        self.prefixLength = prefixLength
        self.address = IPAddress(bytes: Self.masked(address.bytes, prefixLength))!
    }

    /// Parses `ADDRESS/LENGTH`, or a bare address (a block of one). Nil when malformed.
    public init?(_ cidr: String) {
        let parts = cidr.split(separator: "/", omittingEmptySubsequences: false)
        guard parts.count == 1 || parts.count == 2, let address = IPAddress(String(parts[0])) else { return nil }
        var length = address.bytes.count * 8
        if parts.count == 2 {
            guard !parts[1].isEmpty, parts[1].allSatisfy(\.isASCII), parts[1].allSatisfy(\.isNumber),
                  let parsed = Int(parts[1]) else { return nil }
            length = parsed
        }
        self.init(address: address, prefixLength: length)
    }

    /// Whether `candidate` lies in the block (an address of the other family never does).
    public func contains(_ candidate: IPAddress) -> Bool {
        guard candidate.bytes.count == address.bytes.count else { return false }
        var remaining = prefixLength
        for (ours, theirs) in zip(address.bytes, candidate.bytes) where remaining > 0 {
            let mask = UInt8(0xFF) << (8 - min(remaining, 8))
            if ours != theirs & mask { return false }
            remaining -= 8
        }
        return true
    }

    /// `address/prefixLength`.
    public var description: String { "\(address)/\(prefixLength)" }

    private static func masked(_ bytes: [UInt8], _ length: Int) -> [UInt8] {
        bytes.enumerated().map { index, byte in
            let keep = min(max(length - index * 8, 0), 8)
            return keep == 8 ? byte : byte & ~(UInt8(0xFF) >> keep)
        }
    }
}
