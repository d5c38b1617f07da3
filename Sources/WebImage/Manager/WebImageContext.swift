import Foundation

/// Per-request settings with values, SDWebImage's `SDWebImageContext` as typed properties.
///
/// Every property is optional: `nil` means "use the default" (the manager's, the downloader's or the
/// library's). Components add their own entries as they arrive; `userInfo` carries anything else.
public struct WebImageContext: Sendable {
    /// The exact coder to decode (and, in the cache, encode) with, instead of `CodersManager.shared`.
    public var imageCoder: (any ImageCoding)?
    // MARK: Manager entries
    /// The loader for this request instead of the manager's.
    public var imageLoader: (any ImageLoading)? = nil
    /// Transforms the image after decoding, instead of the manager's ``ImageManager/transformer``.
    public var imageTransformer: (any ImageTransforming)? = nil
    /// True: no transformer for this request, not even the manager's (SDWebImage's `NSNull`).
    public var disablesTransformer = false
    /// The per-target operation key of ``ImageTarget`` loads: a new load with the same key cancels
    /// the previous one (default: the target's type name).
    public var setImageOperationKey: String? = nil
    // MARK: Cache entries
    /// Where to look the image up (default ``ImageCacheType/all``); ``ImageCacheType/none`` skips the query.
    public var queryCacheType: ImageCacheType? = nil
    /// Where to store the final image (default ``ImageCacheType/all``). Also decides whether a disk
    /// hit is promoted into memory: only when this includes memory.
    public var storeCacheType: ImageCacheType? = nil
    /// Where to look the original up when a derived (thumbnail or transformed) key misses
    /// (default ``ImageCacheType/disk``; ``ImageCacheType/none`` skips it).
    public var originalQueryCacheType: ImageCacheType? = nil
    /// Where to store the original image of a derived one (default ``ImageCacheType/disk``).
    public var originalStoreCacheType: ImageCacheType? = nil
    /// The cache for this request instead of the manager's.
    public var imageCache: (any ImageCaching)? = nil
    /// The cache for originals of derived images (default: ``imageCache``, then the manager's).
    public var originalImageCache: (any ImageCaching)? = nil
    /// Turns the URL into the cache key instead of the manager's filter.
    public var cacheKeyFilter: CacheKeyFilter? = nil
    /// Chooses the bytes stored on disk instead of the manager's serializer.
    public var cacheSerializer: ImageCacheSerializer? = nil
    /// How the cache encodes an image stored without data (default ``EncodeOptions/default``).
    public var imageEncodeOptions: EncodeOptions? = nil
    /// Where this request's completions run (default: the component's, ``CallbackQueue/shared``).
    public var callbackQueue: CallbackQueue? = nil
    /// Decode to fit this box; also part of the cache key (a thumbnail is cached under its own key).
    public var thumbnailPixelSize: PixelSize?
    /// With a thumbnail size: keep the aspect ratio (default true).
    public var preserveAspectRatio: Bool?
    /// Image scale (≥ 1); default: from the key's `@2x`/`@3x`.
    public var scaleFactor: Double?
    /// Decode within this many bytes (beats `thumbnailPixelSize`; not part of the cache key).
    public var scaleDownLimitBytes: Int?
    /// Limits every decode of this request must respect (default `DecodeLimits.default`).
    public var decodeLimits: DecodeLimits?
    /// Free-form values for custom loaders, caches and coders.
    public var userInfo: [String: any Sendable]
    /// Changes the download request (beats the downloader's); nil from it refuses the download.
    public var requestModifier: DownloadRequestModifier? = nil
    /// Changes the download response before validation (beats the downloader's).
    public var responseModifier: DownloadResponseModifier? = nil
    /// Transforms downloaded bytes before decoding (beats the downloader's); turns off progressive.
    public var decryptor: DownloadDecryptor? = nil
    /// Validators of a cached copy: the downloader sends If-None-Match / If-Modified-Since and
    /// reports 304 as ``WebImageError/Code/cacheNotModified`` with the response's new validators.
    public var validators: HTTPValidators? = nil

    public init(imageCoder: (any ImageCoding)? = nil, thumbnailPixelSize: PixelSize? = nil,
                preserveAspectRatio: Bool? = nil, scaleFactor: Double? = nil,
                scaleDownLimitBytes: Int? = nil, decodeLimits: DecodeLimits? = nil,
                userInfo: [String: any Sendable] = [:],
                queryCacheType: ImageCacheType? = nil, storeCacheType: ImageCacheType? = nil,
                originalQueryCacheType: ImageCacheType? = nil, originalStoreCacheType: ImageCacheType? = nil,
                imageCache: (any ImageCaching)? = nil, originalImageCache: (any ImageCaching)? = nil,
                cacheKeyFilter: CacheKeyFilter? = nil, cacheSerializer: ImageCacheSerializer? = nil,
                imageEncodeOptions: EncodeOptions? = nil, callbackQueue: CallbackQueue? = nil) {
        self.imageCoder = imageCoder
        self.thumbnailPixelSize = thumbnailPixelSize
        self.preserveAspectRatio = preserveAspectRatio
        self.scaleFactor = scaleFactor
        self.scaleDownLimitBytes = scaleDownLimitBytes
        self.decodeLimits = decodeLimits
        self.userInfo = userInfo
        self.queryCacheType = queryCacheType
        self.storeCacheType = storeCacheType
        self.originalQueryCacheType = originalQueryCacheType
        self.originalStoreCacheType = originalStoreCacheType
        self.imageCache = imageCache
        self.originalImageCache = originalImageCache
        self.cacheKeyFilter = cacheKeyFilter
        self.cacheSerializer = cacheSerializer
        self.imageEncodeOptions = imageEncodeOptions
        self.callbackQueue = callbackQueue
    }

    /// An empty context: every default.
    public static let none = WebImageContext()

    /// The decode options this request implies for data stored under `cacheKey`, SDWebImage's rules:
    /// first frame only from the option; scale from the context (values < 1 ignored) or the key;
    /// the byte budget from the context, else the default one with `scaleDownLargeImages`.
    public func decodeOptions(for options: WebImageOptions, cacheKey: String?) -> DecodeOptions {
        var decode = DecodeOptions()
        decode.firstFrameOnly = options.contains(.decodeFirstFrameOnly)
        if let scale = scaleFactor, scale >= 1 {
            decode.scaleFactor = scale
        } else {
            decode.scaleFactor = ImageSizing.scaleFactor(forKey: cacheKey)
        }
        decode.thumbnailPixelSize = thumbnailPixelSize
        decode.preserveAspectRatio = preserveAspectRatio ?? true
        if let limit = scaleDownLimitBytes {
            decode.scaleDownLimitBytes = limit
        } else if options.contains(.scaleDownLargeImages) {
            decode.scaleDownLimitBytes = DecodeOptions.defaultScaleDownLimitBytes
        }
        if let decodeLimits { decode.limits = decodeLimits }
        return decode
    }
}

extension DecodeOptions {
    /// The byte budget `scaleDownLargeImages` applies: 90 MiB (SDWebImage's macOS value).
    public static let defaultScaleDownLimitBytes = 90 * 1024 * 1024
}
