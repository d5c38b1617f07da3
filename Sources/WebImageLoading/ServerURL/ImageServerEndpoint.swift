import Foundation
import WebImageCodecs

/// An image server as a loader sees it: its address and the key URLs are signed with. It turns
/// an ``ImageServerURL`` into the URL to load, and gives the ``CacheKeyFilter`` that keys those
/// URLs without their signature, so cached images survive a rotation of the signing key.
///
/// ```swift
/// let server = ImageServerEndpoint(base: URL(string: "https://img.example.com")!,
///                                  signer: try ImageServerSigner(key: keyHex, salt: saltHex))
/// let url = try server.url(for: ImageServerURL(source: photoURL).sized(forPoints: 120, 80, scale: 3))
/// let result = try await manager.image(for: url, context: server.context())
/// ```
public struct ImageServerEndpoint: Sendable {
    /// The server's address, with any path prefix.
    public let base: URL
    /// Signs the URLs; nil for a server without keys (the signature segment is `insecure`).
    public let signer: ImageServerSigner?
    /// `base` as text without trailing slashes.
    private let prefix: String

    /// An endpoint at `base`, signing with `signer`.
    public init(base: URL, signer: ImageServerSigner? = nil) {
        self.base = base
        self.signer = signer
        var prefix = base.absoluteString
        while prefix.hasSuffix("/") { prefix.removeLast() }
        self.prefix = prefix
    }

    /// The URL that loads `request` from this server, signed.
    public func url(for request: ImageServerURL) throws -> URL {
        try request.url(base: base, signer: signer)
    }

    /// Keys a URL of this server by its address and its path without the signature segment (and
    /// without a query); any other URL by its absolute string. Two signatures of one request —
    /// an old key and a new one — share a key.
    public var cacheKeyFilter: CacheKeyFilter {
        let prefix = prefix
        return CacheKeyFilter { url in
            let text = url.absoluteString
            guard text.hasPrefix(prefix + "/") else { return text }
            let afterBase = text.dropFirst(prefix.count + 1).prefix { $0 != "?" }
            guard let slash = afterBase.firstIndex(of: "/") else { return text }
            return prefix + "/-" + afterBase[slash...]
        }
    }

    /// `context` with ``cacheKeyFilter`` set, for loads of this server's URLs.
    public func context(_ context: WebImageContext = .none) -> WebImageContext {
        var context = context
        context.cacheKeyFilter = cacheKeyFilter
        return context
    }
}
