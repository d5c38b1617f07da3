import WebImageCodecs
import WebImageLoading
import Foundation

/// What one ``ImageManager`` load delivers: the image (or the error), where it came from, and
/// whether it is the final result or a progressive partial image.
public struct ImageManagerResult: Sendable {
    /// The image; nil on failure, on a cache-only miss, and after cancellation.
    public var image: Image?
    /// The encoded bytes the image was decoded from; nil for memory hits, thumbnails and
    /// transformed images (whose bytes are not the image's), as in SDWebImage.
    public var data: Data?
    /// Why the load failed; nil on success and on a cache-only miss.
    public var error: WebImageError?
    /// Where the image came from: `ImageCacheType/memory`, `ImageCacheType/disk`, or
    /// `ImageCacheType/none` for a download.
    public var cacheType: ImageCacheType
    /// False only for a progressive partial image; a final result is always finished.
    public var isFinished: Bool
    /// The URL that was asked for.
    public var url: URL?
    /// The size of the encoded image received or read from disk (also when ``data`` is withheld);
    /// 0 for memory hits and failures.
    public var byteCount: Int
    /// The HTTP response behind a download, when there was one.
    public var response: ImageResponseInfo?

    /// A result with every field given; the defaults describe a finished empty result.
    public init(image: Image? = nil, data: Data? = nil, error: WebImageError? = nil,
                cacheType: ImageCacheType = .none, isFinished: Bool = true, url: URL? = nil,
                byteCount: Int = 0, response: ImageResponseInfo? = nil) {
        self.image = image
        self.data = data
        self.error = error
        self.cacheType = cacheType
        self.isFinished = isFinished
        self.url = url
        self.byteCount = byteCount
        self.response = response
    }

    /// A finished failure for `url`.
    static func failure(_ error: WebImageError, url: URL?) -> ImageManagerResult {
        var error = error
        if error.url == nil { error.url = url }
        return ImageManagerResult(error: error, url: url)
    }
}
