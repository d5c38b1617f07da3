import WebImageCodecs
import Foundation

/// What each optional setting means when it is nil: the one place the library's request defaults
/// live. The manager resolves a load through these once; a cache or loader called directly uses
/// the same accessors, so both see the same values.
extension WebImageContext {
    /// ``queryCacheType``, by default ``ImageCacheType/all``.
    public var resolvedQueryCacheType: ImageCacheType { queryCacheType ?? .all }
    /// ``storeCacheType``, by default ``ImageCacheType/all``.
    public var resolvedStoreCacheType: ImageCacheType { storeCacheType ?? .all }
    /// ``originalQueryCacheType``, by default ``ImageCacheType/disk``.
    public var resolvedOriginalQueryCacheType: ImageCacheType { originalQueryCacheType ?? .disk }
    /// ``originalStoreCacheType``, by default ``ImageCacheType/disk``.
    public var resolvedOriginalStoreCacheType: ImageCacheType { originalStoreCacheType ?? .disk }
    /// ``preserveAspectRatio``, by default true.
    public var resolvedPreserveAspectRatio: Bool { preserveAspectRatio ?? true }

    /// The cache key of `url` under this context: the ``cacheKeyFilter``'s key (nil = do not
    /// cache), else the absolute string. Scale and decode options are read from this key, never
    /// from the raw URL, so a filtered load decodes alike from the network and from disk.
    public func cacheKey(for url: URL) -> String? {
        if let filter = cacheKeyFilter { return filter.key(for: url) }
        return url.absoluteString
    }

    /// The decode options for bytes stored under `cacheKey`: ``decodeOptions`` when set, else
    /// SDWebImage's rules — first frame only, or every frame now, from the options; scale from ``scaleFactor`` (values
    /// below 1 ignored) or the key's `@2x`/`@3x`; the thumbnail fields; the byte budget from
    /// ``scaleDownLimitBytes``, else the default one with `scaleDownLargeImages`; the limits.
    public func resolvedDecodeOptions(for options: WebImageOptions, cacheKey: String?) -> DecodeOptions {
        if let decodeOptions { return decodeOptions }
        var decode = DecodeOptions()
        decode.firstFrameOnly = options.contains(.decodeFirstFrameOnly)
        decode.preloadsAllFrames = options.contains(.preloadAllFrames)
        if let scale = scaleFactor, scale >= 1 {
            decode.scaleFactor = scale
        } else {
            decode.scaleFactor = ImageSizing.scaleFactor(forKey: cacheKey)
        }
        decode.thumbnailPixelSize = thumbnailPixelSize
        decode.preserveAspectRatio = resolvedPreserveAspectRatio
        if let limit = scaleDownLimitBytes {
            decode.scaleDownLimitBytes = limit
        } else if options.contains(.scaleDownLargeImages) {
            decode.scaleDownLimitBytes = DecodeOptions.defaultScaleDownLimitBytes
        }
        if let decodeLimits { decode.limits = decodeLimits }
        return decode
    }
}
