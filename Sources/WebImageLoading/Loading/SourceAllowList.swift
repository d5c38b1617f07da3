import WebImageCodecs
import Foundation

/// The URLs a downloader may request, as a list of URL prefixes compared part by part — never as
/// strings, so `http://a.com` admits neither `http://a.com.evil.net/` nor `http://a.com@evil.net/`.
///
/// Set it on ``DownloaderConfig/sourceAllowList``: the first request's URL and every redirect
/// hop's must be admitted, or the load fails with ``WebImageError/Code/sourceNotAllowed``.
///
/// A URL is admitted by an entry when its scheme and port are the entry's (a missing port is the
/// scheme's default, so `http://a.com` and `http://a.com:80` are one entry), its host is the
/// entry's without regard to case (a name admits only itself, not its subdomains), and its path
/// is under the entry's path. Paths are compared percent-decoded, with `.` and `..` segments
/// resolved (a `\` counts as `/`), so `/images/../private` is not under `/images/`. An entry path
/// ending in `/` admits every path that starts with it; one that does not (`/images`) admits
/// itself and the paths below it (`/images/a.jpg`), not `/images-private`. An entry with no path
/// admits the whole origin.
public struct SourceAllowList: Hashable, Sendable {
    /// One allowed prefix: an origin and a path under it.
    public struct Entry: Hashable, Sendable, CustomStringConvertible {
        /// The scheme, host and port a URL must have.
        public let origin: URLOrigin
        /// The decoded, normalised path a URL's path must be under; `/` admits every path.
        public let path: String

        /// `origin` followed by `path`.
        public var description: String { origin.description + path }

        /// Whether `origin` and the normalised `path` are under this entry.
        func admits(_ origin: URLOrigin, path: String) -> Bool {
            guard origin == self.origin else { return false }
            if self.path.hasSuffix("/") { return path.hasPrefix(self.path) }
            return path == self.path || path.hasPrefix(self.path + "/")
        }
    }

    /// The prefixes, in the order given.
    public let entries: [Entry]

    /// The list of `prefixes` (`https://cdn.example.com/images/`). Throws
    /// ``WebImageError/Code/invalidURL`` naming a prefix that is not an http(s) URL with a valid
    /// host and port, or that has user information, a query or a fragment.
    public init(_ prefixes: [String]) throws(WebImageError) {
        var entries: [Entry] = []
        for prefix in prefixes {
            guard let url = URL(string: prefix), url.user == nil, url.password == nil, url.query == nil,
                  url.fragment == nil, !prefix.contains("?"), !prefix.contains("#") else {
                throw WebImageError(.invalidURL,
                    "The allowed source \"\(prefix)\" must be an http(s) URL prefix without user, query or fragment.")
            }
            let origin: URLOrigin
            do {
                origin = try URLOrigin(validating: url)
            } catch {
                throw WebImageError(.invalidURL, "The allowed source \"\(prefix)\" is not valid: \(error.message)")
            }
            guard let path = Self.normalizedPath(of: url) else {
                throw WebImageError(.invalidURL, "The allowed source \"\(prefix)\" has a malformed path.")
            }
            entries.append(Entry(origin: origin, path: path))
        }
        self.entries = entries
    }

    /// Whether `url` is under one of the entries. A URL that fails ``URLOrigin/init(validating:)``
    /// is never admitted.
    public func admits(_ url: URL) -> Bool {
        guard let origin = try? URLOrigin(validating: url), let path = Self.normalizedPath(of: url) else { return false }
        return entries.contains { $0.admits(origin, path: path) }
    }

    /// The URL's path percent-decoded, `\` read as `/`, dot segments resolved (RFC 3986 §5.2.4),
    /// starting with `/`; nil when its percent-encoding is malformed.
    static func normalizedPath(of url: URL) -> String? {
        guard let components = URLComponents(url: url, resolvingAgainstBaseURL: true),
              let decoded = components.percentEncodedPath.removingPercentEncoding else { return nil }
        var output: [Substring] = []
        let segments = decoded.replacingOccurrences(of: "\\", with: "/").split(separator: "/", omittingEmptySubsequences: false)
        for (index, segment) in segments.enumerated() where index > 0 || !segment.isEmpty {
            let isLast = index == segments.count - 1
            switch segment {
            case ".":
                if isLast { output.append("") }
            case "..":
                if !output.isEmpty { output.removeLast() }
                if isLast { output.append("") }
            default:
                output.append(segment)
            }
        }
        return "/" + output.joined(separator: "/")
    }
}
