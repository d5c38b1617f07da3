import Foundation
import WebImage

/// Fetches avatars from the configured store with an `ImageManager`, decodes them straight at
/// thumbnail size, crops them square, and keeps the result in memory and on disk.
public final class AvatarService: Sendable {
    let configuration: AvatarConfiguration
    let manager: ImageManager
    let downloader: ImageDownloader

    /// A service for `configuration`; throws for an origin the guard's allow-list cannot take.
    public init(configuration: AvatarConfiguration) throws {
        self.configuration = configuration
        var downloads = DownloaderConfig.default
        // Only the avatar store, and only public addresses unless it is allowed by name.
        downloads.sourceAllowList = try SourceAllowList([configuration.origin.absoluteString])
        downloads.addressPolicy = AddressPolicy(allowedHosts: configuration.allowedPrivateHosts)
        downloader = ImageDownloader(config: downloads)
        var caching = ImageCacheConfig()
        caching.maxMemoryCost = configuration.memoryBytes
        let cache = ImageCache(namespace: "avatars", directory: configuration.cacheDirectory, config: caching)
        manager = ImageManager(cache: cache, loader: LoadersManager(loaders: [downloader]))
    }

    /// A thumbnail and where it came from.
    public struct Avatar: Sendable {
        public let image: Image
        /// `.none` when it was fetched now, `.memory` or `.disk` when it was cached.
        public let cacheType: ImageCacheType
    }

    /// The avatar of `user` as a `side`×`side` square.
    public func avatar(user: String, side: Int) async throws(WebImageError) -> Avatar {
        let url = configuration.origin.appendingPathComponent(user)
        var context = WebImageContext()
        // Decoded at the size it is shown (JPEG, WebP, AVIF … scale while they decode), then
        // cropped square around its centre.
        context.thumbnailPixelSize = PixelSize(width: side, height: side)
        context.imageTransformer = ResizingTransformer(size: PointSize(width: Double(side), height: Double(side)),
                                                       scaleMode: .aspectFill)
        // A missing avatar is asked for again next time; the answer goes out once it is on disk.
        let result = try await manager.image(for: url, options: [.retryFailed, .waitStoreCache], context: context)
        guard let image = result.image else { throw WebImageError(.notCached, "No image for \(user).") }
        return Avatar(image: image, cacheType: result.cacheType)
    }

    /// Stops the downloads and closes the HTTP client.
    public func shutdown() async {
        try? await downloader.shutdown()
    }
}
