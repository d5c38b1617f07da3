import WebImageCodecs
import Foundation
import Synchronization

/// A small in-memory cookie store, one per downloader, used for requests with `.handleCookies`.
///
/// Follows the RFC 6265 basics: host-only and Domain cookies, Path prefix matching, Secure,
/// Max-Age and Expires (an expired or `Max-Age=0` cookie deletes the stored one).
public final class CookieJar: Sendable {
    struct Cookie: Sendable, Equatable {
        var name: String
        var value: String
        var domain: String
        var hostOnly: Bool
        var path: String
        var secure: Bool
        var expires: Date?
    }

    private let cookies = Mutex<[Cookie]>([])

    /// An empty jar.
    public init() {}

    /// Number of cookies stored (expired ones included until the next lookup).
    public var count: Int { cookies.withLock { $0.count } }

    /// Removes every cookie.
    public func removeAll() { cookies.withLock { $0.removeAll() } }

    /// The `Cookie` header value for a request to `url`, or nil when no cookie applies.
    public func cookieHeader(for url: URL, now: Date = Date()) -> String? {
        guard let host = url.host?.lowercased() else { return nil }
        let path = url.path.isEmpty ? "/" : url.path
        let secure = url.scheme?.lowercased() == "https"
        let matching = cookies.withLock { stored -> [Cookie] in
            stored.removeAll { $0.expires.map { $0 <= now } ?? false }
            return stored.filter { cookie in
                (cookie.hostOnly ? host == cookie.domain : Self.domainMatches(host, cookie.domain))
                    && Self.pathMatches(path, cookie.path) && (!cookie.secure || secure)
            }
        }
        guard !matching.isEmpty else { return nil }
        return matching.sorted { $0.path.count > $1.path.count }.map { "\($0.name)=\($0.value)" }
            .joined(separator: "; ")
    }

    /// Stores the cookies of `setCookieValues` (one `Set-Cookie` header value each) received from `url`.
    public func store(_ setCookieValues: [String], from url: URL, now: Date = Date()) {
        guard let host = url.host?.lowercased() else { return }
        for value in setCookieValues {
            guard let cookie = Self.parse(value, host: host, requestPath: url.path, now: now) else { continue }
            cookies.withLock { stored in
                stored.removeAll { $0.name == cookie.name && $0.domain == cookie.domain && $0.path == cookie.path }
                if cookie.expires.map({ $0 > now }) ?? true { stored.append(cookie) }
            }
        }
    }

    static func parse(_ header: String, host: String, requestPath: String, now: Date) -> Cookie? {
        let parts = header.split(separator: ";").map { $0.trimmingCharacters(in: .whitespaces) }
        guard let first = parts.first, let equals = first.firstIndex(of: "=") else { return nil }
        let name = String(first[..<equals]).trimmingCharacters(in: .whitespaces)
        guard !name.isEmpty else { return nil }
        var cookie = Cookie(name: name, value: String(first[first.index(after: equals)...]), domain: host,
                            hostOnly: true, path: defaultPath(requestPath), secure: false, expires: nil)
        var maxAgeSeen = false
        for attribute in parts.dropFirst() {
            let pieces = attribute.split(separator: "=", maxSplits: 1).map(String.init)
            let key = pieces[0].lowercased()
            let value = pieces.count > 1 ? pieces[1].trimmingCharacters(in: .whitespaces) : ""
            switch key {
            case "domain":
                var domain = value.lowercased()
                if domain.hasPrefix(".") { domain.removeFirst() }
                guard !domain.isEmpty else { continue }
                guard domainMatches(host, domain) else { return nil }
                cookie.domain = domain
                cookie.hostOnly = false
            case "path" where value.hasPrefix("/"): cookie.path = value
            case "secure": cookie.secure = true
            case "max-age":
                guard let seconds = Int(value) else { continue }
                maxAgeSeen = true
                cookie.expires = now.addingTimeInterval(TimeInterval(seconds))
            case "expires" where !maxAgeSeen:
                if let date = HTTPDate.parse(value) { cookie.expires = date }
            default: continue
            }
        }
        return cookie
    }

    static func domainMatches(_ host: String, _ domain: String) -> Bool {
        host == domain || host.hasSuffix("." + domain)
    }

    static func pathMatches(_ path: String, _ cookiePath: String) -> Bool {
        path == cookiePath || (path.hasPrefix(cookiePath)
            && (cookiePath.hasSuffix("/") || path.dropFirst(cookiePath.count).first == "/"))
    }

    private static func defaultPath(_ path: String) -> String {
        guard path.hasPrefix("/"), let slash = path.lastIndex(of: "/"), slash != path.startIndex else { return "/" }
        return String(path[..<slash])
    }
}
