import WebImageCodecs
import Foundation

/// Chooses the bytes written to the disk cache for a downloaded image (SDWebImage's
/// `SDWebImageCacheSerializer`), e.g. re-encoding to save space.
///
/// Returning nil stores nothing on disk. The input data is nil when the image was transformed.
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
