import WebImageCodecs
import Foundation

/// The scheme, host and port an http(s) URL connects to, checked before any socket code sees the
/// URL and normalised for comparison.
///
/// The downloader checks every URL it is about to request — the first one and each redirect
/// hop's — with ``init(validating:)``: a URL that the HTTP client or the socket layer could
/// misread or trap on (a port above 65535, an address literal that is not one) fails with a clear
/// message instead. The checks:
/// - the scheme is `http` or `https`;
/// - the host is not empty; a bracketed host is an IPv6 address without a zone; any other host
///   is made of ASCII letters, digits, `-`, `_` and `.` in labels of 1–63 characters (253 in
///   all, a trailing dot allowed), with no percent-encoding; a host whose last label is a number
///   must be a dotted-quad IPv4 address (`127.1`, `0x7f.1` or `2130706433` are refused, since
///   resolvers read them in different ways);
/// - a port, when the URL names one, is 1–65535 (an empty port means the scheme's default);
/// - Foundation reads the same host and port from the URL, so every layer agrees on the target.
public struct URLOrigin: Hashable, Sendable, CustomStringConvertible {
    /// `http` or `https`.
    public let scheme: String
    /// The host in lowercase without a trailing dot; an address literal in its standard form
    /// (IPv6 without brackets).
    public let host: String
    /// The port, the scheme's default (80, 443) when the URL names none.
    public let port: Int

    /// The origin of `url`, or ``WebImageError/Code/invalidURL`` saying what is wrong with it.
    public init(validating url: URL) throws(WebImageError) {
        func refuse(_ reason: String) -> WebImageError {
            WebImageError(.invalidURL, "The URL \(url.absoluteString) cannot be requested: \(reason).", url: url)
        }
        guard let scheme = url.scheme?.lowercased(), scheme == "http" || scheme == "https" else {
            throw refuse("it is not an http(s) URL")
        }
        let text = url.absoluteString
        // Byte-wise: every character the checks accept is ASCII, so UTF-8 offsets are character offsets.
        guard let separator = text.utf8.firstRange(of: "://".utf8),
              text[..<separator.lowerBound].lowercased() == scheme else {
            throw refuse("it has no host")
        }
        let rest = text[separator.upperBound...]
        let authorityEnd = rest.utf8.firstIndex { $0 == UInt8(ascii: "/") || $0 == UInt8(ascii: "?") || $0 == UInt8(ascii: "#") }
        let authority = rest[..<(authorityEnd ?? rest.endIndex)]
        let hostAndPort = authority.utf8.lastIndex(of: UInt8(ascii: "@")).map { authority[authority.utf8.index(after: $0)...] } ?? authority
        let (hostText, portText) = try Self.split(hostAndPort, refuse)
        let normalized = try Self.checkedHost(hostText, refuse)
        let defaultPort = scheme == "https" ? 443 : 80
        var port = defaultPort
        if let portText, !portText.isEmpty {
            guard portText.utf8.count <= 5, portText.utf8.allSatisfy(Self.isDigit), let number = Int(portText),
                  (1...65535).contains(number) else {
                throw refuse("its port \(portText.prefix(24)) is not a number from 1 to 65535")
            }
            port = number
        }
        // Foundation (which the HTTP client reads) must see the same target.
        var foundationHost = url.host ?? ""
        if foundationHost.hasPrefix("["), foundationHost.hasSuffix("]") { foundationHost = String(foundationHost.dropFirst().dropLast()) }
        let namedPort = portText.flatMap { $0.isEmpty ? nil : port }
        guard foundationHost.lowercased() == hostText.lowercased(), url.port == namedPort else {
            throw refuse("its host or port is ambiguous")
        }
        self.scheme = scheme
        self.host = normalized
        self.port = port
    }

    /// `scheme://host:port` (IPv6 in brackets).
    public var description: String {
        let shownHost = host.contains(":") ? "[\(host)]" : host
        return "\(scheme)://\(shownHost):\(port)"
    }

    /// The host (brackets removed) and the port text after its colon, if any.
    private static func split(_ hostAndPort: Substring,
                              _ refuse: (String) -> WebImageError) throws(WebImageError) -> (Substring, Substring?) {
        if hostAndPort.utf8.first == UInt8(ascii: "[") {
            guard let close = hostAndPort.firstIndex(of: "]") else { throw refuse("its IPv6 address has no closing bracket") }
            let host = hostAndPort[hostAndPort.index(after: hostAndPort.startIndex)..<close]
            let after = hostAndPort[hostAndPort.index(after: close)...]
            guard after.isEmpty || after.hasPrefix(":") else { throw refuse("text follows its IPv6 address") }
            guard IPAddress(String(host)) != nil, host.contains(":"), !host.contains("%") else {
                throw refuse("[\(host.prefix(64))] is not an IPv6 address")
            }
            return (host, after.isEmpty ? nil : after.dropFirst())
        }
        guard let colon = hostAndPort.utf8.lastIndex(of: UInt8(ascii: ":")) else { return (hostAndPort, nil) }
        return (hostAndPort[..<colon], hostAndPort[hostAndPort.utf8.index(after: colon)...])
    }

    /// The normalised host, after the syntax checks.
    private static func checkedHost(_ host: Substring, _ refuse: (String) -> WebImageError) throws(WebImageError) -> String {
        guard !host.isEmpty else { throw refuse("it has no host") }
        let bytes = host.utf8
        if bytes.contains(UInt8(ascii: ":")) {
            // Only a bracketed host gets here with a colon (see split).
            return IPAddress(String(host))!.description
        }
        let shown = host.prefix(64)
        guard bytes.count <= 254, bytes.allSatisfy(isHostNameByte) else {
            throw refuse("its host \"\(shown)\" is not a valid host name")
        }
        var labels = bytes.split(separator: UInt8(ascii: "."), omittingEmptySubsequences: false)
        let trailingDot = labels.count > 1 && labels.last?.isEmpty == true
        if trailingDot { labels.removeLast() }
        guard labels.allSatisfy({ (1...63).contains($0.count) }), bytes.count - (trailingDot ? 1 : 0) <= 253 else {
            throw refuse("its host \"\(shown)\" is not a valid host name")
        }
        let last = labels[labels.count - 1]
        let numeric = last.allSatisfy(isDigit) || (last.count >= 2 && last.first == UInt8(ascii: "0")
            && last.dropFirst().first.map { $0 | 0x20 == UInt8(ascii: "x") } == true && last.dropFirst(2).allSatisfy(isHexDigit))
        if numeric {
            guard let address = IPAddress(String(host)), address.isIPv4, !trailingDot else {
                throw refuse("its host \"\(shown)\" is not a valid IPv4 address")
            }
            return address.description
        }
        var name = host.lowercased()
        if trailingDot { name.removeLast() }
        return name
    }

    private static func isDigit(_ byte: UInt8) -> Bool { byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9") }

    private static func isHexDigit(_ byte: UInt8) -> Bool {
        isDigit(byte) || (byte | 0x20 >= UInt8(ascii: "a") && byte | 0x20 <= UInt8(ascii: "f"))
    }

    /// An ASCII letter or digit, `-`, `_` or `.`.
    private static func isHostNameByte(_ byte: UInt8) -> Bool {
        isDigit(byte) || (byte | 0x20 >= UInt8(ascii: "a") && byte | 0x20 <= UInt8(ascii: "z"))
            || byte == UInt8(ascii: "-") || byte == UInt8(ascii: "_") || byte == UInt8(ascii: ".")
    }
}
