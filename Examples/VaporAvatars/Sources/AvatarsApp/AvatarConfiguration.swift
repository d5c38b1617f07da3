import Foundation
import WebImage

/// Where avatars come from and where their thumbnails are kept.
public struct AvatarConfiguration: Sendable {
    /// The avatar store: the avatar of `alice` is `origin/alice`.
    public var origin: URL
    /// The disk cache of thumbnails (kept across restarts).
    public var cacheDirectory: URL
    /// Hosts the safe-fetch guard lets through although they resolve to a private or loopback
    /// address (an avatar store on the internal network; `127.0.0.1` in tests). Empty: public
    /// addresses only.
    public var allowedPrivateHosts: Set<String> = []
    /// The memory cache's budget for decoded thumbnails, in bytes.
    public var memoryBytes = 64 << 20
    /// The sizes a client may ask for, in pixels (a square of that side).
    public var sizes = 16...512

    public init(origin: URL, cacheDirectory: URL) {
        self.origin = origin
        self.cacheDirectory = cacheDirectory
    }
}
