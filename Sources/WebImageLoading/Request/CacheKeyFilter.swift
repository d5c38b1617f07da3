import WebImageCodecs
import Foundation

/// Turns a URL into the key its image is cached under (SDWebImage's `SDWebImageCacheKeyFilter`).
///
/// Returning nil means "do not cache this URL". Use it to make URLs that differ only in volatile
/// parts (signatures, tokens) share one cache entry.
public struct CacheKeyFilter: Sendable {
    private let body: @Sendable (URL) -> String?

    /// A filter running `body`.
    public init(_ body: @escaping @Sendable (URL) -> String?) {
        self.body = body
    }

    /// The cache key for `url`, or nil to skip caching.
    public func key(for url: URL) -> String? {
        body(url)
    }

    /// The default rule: the URL's absolute string.
    public static let absoluteString = CacheKeyFilter { $0.absoluteString }

    /// Drops the query string (`?…`), so signed or tokenised URLs of one image share a key; the
    /// fragment, if any, is kept.
    public static let droppingQuery = CacheKeyFilter { url in
        guard var components = URLComponents(url: url, resolvingAgainstBaseURL: false) else {
            return url.absoluteString
        }
        components.query = nil
        return components.string ?? url.absoluteString
    }
}
