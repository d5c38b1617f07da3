/// The 304 response behind a ``WebImageError/Code/cacheNotModified`` error, as its
/// ``WebImageError/underlying`` error: its headers carry the origin's renewed freshness
/// (`Cache-Control`, `Expires`) and validators, which update the cached copy's (RFC 9111 §4.3.4).
public struct NotModifiedResponse: Error, Sendable {
    /// The 304 response.
    public let response: ImageResponseInfo

    /// The 304 `response`.
    public init(response: ImageResponseInfo) {
        self.response = response
    }
}
