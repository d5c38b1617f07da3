import WebImageCodecs
import Foundation

/// Chooses the bytes written to the disk cache for a loaded image (SDWebImage's
/// `SDWebImageCacheSerializer`), e.g. re-encoding to save space.
///
/// ``ImageManager`` calls it for each of its stores whose cache type includes disk (the original
/// store and the final store), before the write, with the image of that store and the bytes it
/// would write otherwise. Those bytes are nil when the final image was transformed or decoded as a
/// thumbnail, or when the image came from a cache without its bytes. In the original store of a
/// thumbnail the image is the thumbnail and the bytes are the original's.
///
/// Returning nil does not mean "store nothing": the store goes on without bytes, so the loaded
/// bytes are not written either, and ``ImageCache`` encodes the image
/// (``ImageCache/encodedData(for:context:)``) and writes that instead. Only the original store of
/// a thumbnail, which has bytes but no original image, writes nothing when this returns nil. The
/// memory cache gets the same image whatever this returns.
public struct ImageCacheSerializer: Sendable {
    private let body: @Sendable (Image, Data?, URL?) -> Data?

    /// A serializer running `body(image, originalData, url)`.
    public init(_ body: @escaping @Sendable (Image, Data?, URL?) -> Data?) {
        self.body = body
    }

    /// The bytes to store for `image`, downloaded as `data` from `url`.
    public func cacheData(for image: Image, originalData data: Data?, url: URL?) -> Data? {
        body(image, data, url)
    }
}
