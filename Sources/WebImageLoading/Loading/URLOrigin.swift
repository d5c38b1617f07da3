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
        guard let separator = text.range(of: "://"),
              text[..<separator.lowerBound].lowercased() == scheme else {
            throw refuse("it has no host")
        }
        let rest = text[separator.upperBound...]
        let authority = rest[..<(rest.firstIndex { $0 == "/" || $0 == "?" || $0 == "#" } ?? rest.endIndex)]
        let hostAndPort = authority.lastIndex(of: "@").map { authority[authority.index(after: $0)...] } ?? authority
        let (hostText, portText) = try Self.split(hostAndPort, refuse)
        let normalized = try Self.checkedHost(hostText, refuse)
        let defaultPort = scheme == "https" ? 443 : 80
        var port = defaultPort
        if let portText, !portText.isEmpty {
            guard portText.count <= 5, portText.allSatisfy({ $0.isASCII && $0.isNumber }), let number = Int(portText),
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
        if hostAndPort.hasPrefix("[") {
            guard let close = hostAndPort.firstIndex(of: "]") else { throw refuse("its IPv6 address has no closing bracket") }
            let host = hostAndPort[hostAndPort.index(after: hostAndPort.startIndex)..<close]
            let after = hostAndPort[hostAndPort.index(after: close)...]
            guard after.isEmpty || after.hasPrefix(":") else { throw refuse("text follows its IPv6 address") }
            guard IPAddress(String(host)) != nil, host.contains(":"), !host.contains("%") else {
                throw refuse("[\(host.prefix(64))] is not an IPv6 address")
            }
            return (host, after.isEmpty ? nil : after.dropFirst())
        }
        guard let colon = hostAndPort.lastIndex(of: ":") else { return (hostAndPort, nil) }
        return (hostAndPort[..<colon], hostAndPort[hostAndPort.index(after: colon)...])
    }

    /// The normalised host, after the syntax checks.
    private static func checkedHost(_ host: Substring, _ refuse: (String) -> WebImageError) throws(WebImageError) -> String {
        guard !host.isEmpty else { throw refuse("it has no host") }
        if host.contains(":") {
            // Only a bracketed host gets here with a colon (see split).
            return IPAddress(String(host))!.description
        }
        let shown = host.prefix(64)
        guard host.utf8.count <= 254, host.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || "-_.".contains($0)) }) else {
            throw refuse("its host \"\(shown)\" is not a valid host name")
        }
        var labels = host.split(separator: ".", omittingEmptySubsequences: false)
        if labels.count > 1, labels.last?.isEmpty == true { labels.removeLast() }
        guard labels.allSatisfy({ (1...63).contains($0.count) }), labels.joined(separator: ".").count <= 253 else {
            throw refuse("its host \"\(shown)\" is not a valid host name")
        }
        let last = labels[labels.count - 1]
        let numeric = last.allSatisfy(\.isNumber)
            || (last.lowercased().hasPrefix("0x") && last.dropFirst(2).allSatisfy(\.isHexDigit))
        if numeric {
            guard let address = IPAddress(String(host)), address.isIPv4, !host.hasSuffix(".") else {
                throw refuse("its host \"\(shown)\" is not a valid IPv4 address")
            }
            return address.description
        }
        var name = host.lowercased()
        if name.hasSuffix(".") { name.removeLast() }
        return name
    }
}
