import WebImageCodecs
import Foundation

/// Per-request settings with values, SDWebImage's `SDWebImageContext` as typed properties.
///
/// Every property is optional: `nil` means "use the default" (the manager's, the downloader's or the
/// library's). Components add their own entries as they arrive; `userInfo` carries anything else.
///
/// SDWebImage context keys with no property here, and why:
/// - `imageForceDecodePolicy`: a still image (and an animation's first frame) is decoded to a
///   bitmap when it is loaded; an animation's other frames are decoded on request unless
///   ``WebImageOptions/preloadAllFrames`` asks for them all.
/// - `imageDecodeOptions`: there is no untyped coder-option dictionary; the typed fields
///   (``thumbnailPixelSize``, ``preserveAspectRatio``, ``scaleFactor``, ``scaleDownLimitBytes``,
///   ``decodeLimits``) are what the coders read, and a custom coder (``imageCoder``) takes its own
///   settings when it is created.
/// - `imageTypeIdentifierHint`: there are no UTIs on Linux, and every decoder recognises its format
///   from the bytes (`ImageFormat.detect(_:)`), so a hint would have nothing to decide.
/// - `imageDecodeToHDR`: bitmaps are 8-bit RGBA; there is no HDR decode.
/// - `animatedImageClass`: ``animatedImageFactory`` (a factory, not a class: one ``Image`` class
///   serves stills and animations; the factory's name marks the images it makes).
/// - `customManager`: the view binding (`ImageTarget`) takes the manager as a `manager:` parameter.
/// - `loaderCachedImage`: a `refreshCached` load hands the loader the cached copy's HTTP
///   ``validators`` instead of the cached image; an origin without validators is answered by
///   comparing the new bytes with the cached ones.
public struct WebImageContext: Sendable {
    /// The values, shared between copies until one is changed: a context is copied at every
    /// pipeline step, and one reference is far cheaper to copy than two dozen fields.
    private var storage: Storage

    /// The storage of a context, copied on write.
    // No lock: only mutated through `mutableStorage()`, which copies first unless this is the sole reference.
    private final class Storage: @unchecked Sendable {
        var imageCoder: (any ImageCoding)? = nil
        var imageLoader: (any ImageLoading)? = nil
        var imageTransformer: (any ImageTransforming)? = nil
        var disablesTransformer: Bool = false
        var setImageOperationKey: String? = nil
        var queryCacheType: ImageCacheType? = nil
        var storeCacheType: ImageCacheType? = nil
        var originalQueryCacheType: ImageCacheType? = nil
        var originalStoreCacheType: ImageCacheType? = nil
        var imageCache: (any ImageCaching)? = nil
        var originalImageCache: (any ImageCaching)? = nil
        var cacheKeyFilter: CacheKeyFilter? = nil
        var cacheSerializer: ImageCacheSerializer? = nil
        var imageEncodeOptions: EncodeOptions? = nil
        var callbackQueue: CallbackQueue? = nil
        var thumbnailPixelSize: PixelSize? = nil
        var preserveAspectRatio: Bool? = nil
        var scaleFactor: Double? = nil
        var scaleDownLimitBytes: Int? = nil
        var decodeLimits: DecodeLimits? = nil
        var userInfo: [String: any Sendable] = [:]
        var requestModifier: DownloadRequestModifier? = nil
        var responseModifier: DownloadResponseModifier? = nil
        var decryptor: DownloadDecryptor? = nil
        var retryStrategy: RetryStrategy? = nil
        var maximumResponseSize: Int? = nil
        var errorBodyLimit: Int? = nil
        var validators: HTTPValidators? = nil
        var decodeOptions: DecodeOptions? = nil
        var animatedImageFactory: (any AnimatedImageFactory)? = nil
        var placeholderHash: PlaceholderHash? = nil

        init() {}

        func copy() -> Storage {
            let copy = Storage()
            copy.imageCoder = imageCoder
            copy.imageLoader = imageLoader
            copy.imageTransformer = imageTransformer
            copy.disablesTransformer = disablesTransformer
            copy.setImageOperationKey = setImageOperationKey
            copy.queryCacheType = queryCacheType
            copy.storeCacheType = storeCacheType
            copy.originalQueryCacheType = originalQueryCacheType
            copy.originalStoreCacheType = originalStoreCacheType
            copy.imageCache = imageCache
            copy.originalImageCache = originalImageCache
            copy.cacheKeyFilter = cacheKeyFilter
            copy.cacheSerializer = cacheSerializer
            copy.imageEncodeOptions = imageEncodeOptions
            copy.callbackQueue = callbackQueue
            copy.thumbnailPixelSize = thumbnailPixelSize
            copy.preserveAspectRatio = preserveAspectRatio
            copy.scaleFactor = scaleFactor
            copy.scaleDownLimitBytes = scaleDownLimitBytes
            copy.decodeLimits = decodeLimits
            copy.userInfo = userInfo
            copy.requestModifier = requestModifier
            copy.responseModifier = responseModifier
            copy.decryptor = decryptor
            copy.retryStrategy = retryStrategy
            copy.maximumResponseSize = maximumResponseSize
            copy.errorBodyLimit = errorBodyLimit
            copy.validators = validators
            copy.decodeOptions = decodeOptions
            copy.animatedImageFactory = animatedImageFactory
            copy.placeholderHash = placeholderHash
            return copy
        }
    }

    /// The storage, copied first when another context shares it.
    private mutating func mutableStorage() -> Storage {
        if !isKnownUniquelyReferenced(&storage) { storage = storage.copy() }
        return storage
    }

    /// The exact coder to decode (and, in the cache, encode) with, instead of `CodersManager.shared`.
    public var imageCoder: (any ImageCoding)? {
        get { storage.imageCoder }
        set { mutableStorage().imageCoder = newValue }
    }
    /// Makes the request's animated images before its coder is tried (SDWebImage's
    /// `animatedImageClass`); data it declines goes to the coder unless the request has
    /// ``WebImageOptions/matchAnimatedImageClass``. Not used for first-frame-only decodes.
    public var animatedImageFactory: (any AnimatedImageFactory)? {
        get { storage.animatedImageFactory }
        set { mutableStorage().animatedImageFactory = newValue }
    }
    /// A BlurHash or ThumbHash that `ImageTarget.setImage(with:placeholder:…)` decodes and shows
    /// at once when it is given no placeholder image, until the image arrives (the placeholder's
    /// usual rules apply: not shown over a memory hit; with `delayPlaceholder`, only when the load
    /// ends without an image). It is decoded on the calling thread, only when it is shown; a hash
    /// that does not decode shows no placeholder. The manager and the caches ignore it.
    public var placeholderHash: PlaceholderHash? {
        get { storage.placeholderHash }
        set { mutableStorage().placeholderHash = newValue }
    }
    // MARK: Manager entries
    /// The loader for this request instead of the manager's.
    public var imageLoader: (any ImageLoading)? {
        get { storage.imageLoader }
        set { mutableStorage().imageLoader = newValue }
    }
    /// Transforms the image after decoding, instead of the manager's transformer.
    public var imageTransformer: (any ImageTransforming)? {
        get { storage.imageTransformer }
        set { mutableStorage().imageTransformer = newValue }
    }
    /// True: no transformer for this request, not even the manager's (SDWebImage's `NSNull`).
    public var disablesTransformer: Bool {
        get { storage.disablesTransformer }
        set { mutableStorage().disablesTransformer = newValue }
    }
    /// The per-target operation key of view-binding (`ImageTarget`) loads: a new load with the same key cancels
    /// the previous one (default: the target's type name).
    public var setImageOperationKey: String? {
        get { storage.setImageOperationKey }
        set { mutableStorage().setImageOperationKey = newValue }
    }
    // MARK: Cache entries
    /// Where to look the image up (default ``ImageCacheType/all``); ``ImageCacheType/none`` skips the query.
    public var queryCacheType: ImageCacheType? {
        get { storage.queryCacheType }
        set { mutableStorage().queryCacheType = newValue }
    }
    /// Where to store the final image (default ``ImageCacheType/all``). Also decides whether a disk
    /// hit is promoted into memory: only when this includes memory.
    public var storeCacheType: ImageCacheType? {
        get { storage.storeCacheType }
        set { mutableStorage().storeCacheType = newValue }
    }
    /// Where to look the original up when a derived (thumbnail or transformed) key misses
    /// (default ``ImageCacheType/disk``; ``ImageCacheType/none`` skips it).
    public var originalQueryCacheType: ImageCacheType? {
        get { storage.originalQueryCacheType }
        set { mutableStorage().originalQueryCacheType = newValue }
    }
    /// Where to store the original image of a derived one (default ``ImageCacheType/disk``).
    public var originalStoreCacheType: ImageCacheType? {
        get { storage.originalStoreCacheType }
        set { mutableStorage().originalStoreCacheType = newValue }
    }
    /// The cache for this request instead of the manager's.
    public var imageCache: (any ImageCaching)? {
        get { storage.imageCache }
        set { mutableStorage().imageCache = newValue }
    }
    /// The cache for originals of derived images (default: ``imageCache``, then the manager's).
    public var originalImageCache: (any ImageCaching)? {
        get { storage.originalImageCache }
        set { mutableStorage().originalImageCache = newValue }
    }
    /// Turns the URL into the cache key instead of the manager's filter.
    public var cacheKeyFilter: CacheKeyFilter? {
        get { storage.cacheKeyFilter }
        set { mutableStorage().cacheKeyFilter = newValue }
    }
    /// Chooses the bytes stored on disk for this request, instead of the manager's serializer.
    /// Returning nil does not skip the disk: the cache writes the image encoded instead (see
    /// ``ImageCacheSerializer``).
    public var cacheSerializer: ImageCacheSerializer? {
        get { storage.cacheSerializer }
        set { mutableStorage().cacheSerializer = newValue }
    }
    /// How the cache encodes an image stored without data (default ``EncodeOptions/default``).
    public var imageEncodeOptions: EncodeOptions? {
        get { storage.imageEncodeOptions }
        set { mutableStorage().imageEncodeOptions = newValue }
    }
    /// Where this request's completions run (default: the component's, ``CallbackQueue/shared``).
    public var callbackQueue: CallbackQueue? {
        get { storage.callbackQueue }
        set { mutableStorage().callbackQueue = newValue }
    }
    /// Decode to fit this box; also part of the cache key (a thumbnail is cached under its own key).
    public var thumbnailPixelSize: PixelSize? {
        get { storage.thumbnailPixelSize }
        set { mutableStorage().thumbnailPixelSize = newValue }
    }
    /// With a thumbnail size: keep the aspect ratio (default true).
    public var preserveAspectRatio: Bool? {
        get { storage.preserveAspectRatio }
        set { mutableStorage().preserveAspectRatio = newValue }
    }
    /// Image scale (≥ 1); default: from the key's `@2x`/`@3x`.
    public var scaleFactor: Double? {
        get { storage.scaleFactor }
        set { mutableStorage().scaleFactor = newValue }
    }
    /// Decode within this many bytes (beats `thumbnailPixelSize`; not part of the cache key).
    public var scaleDownLimitBytes: Int? {
        get { storage.scaleDownLimitBytes }
        set { mutableStorage().scaleDownLimitBytes = newValue }
    }
    /// Limits every decode of this request must respect (default `DecodeLimits.default`).
    public var decodeLimits: DecodeLimits? {
        get { storage.decodeLimits }
        set { mutableStorage().decodeLimits = newValue }
    }
    /// Free-form values for custom loaders, caches and coders.
    public var userInfo: [String: any Sendable] {
        get { storage.userInfo }
        set { mutableStorage().userInfo = newValue }
    }
    /// Changes the download request (beats the downloader's); nil from it refuses the download.
    public var requestModifier: DownloadRequestModifier? {
        get { storage.requestModifier }
        set { mutableStorage().requestModifier = newValue }
    }
    /// Changes the download response before validation (beats the downloader's).
    public var responseModifier: DownloadResponseModifier? {
        get { storage.responseModifier }
        set { mutableStorage().responseModifier = newValue }
    }
    /// Transforms downloaded bytes before decoding (beats the downloader's); turns off progressive.
    public var decryptor: DownloadDecryptor? {
        get { storage.decryptor }
        set { mutableStorage().decryptor = newValue }
    }
    /// When a failed download is tried again (beats the downloader's ``DownloaderConfig/retryStrategy``;
    /// nil uses that, which is off by default).
    public var retryStrategy: RetryStrategy? {
        get { storage.retryStrategy }
        set { mutableStorage().retryStrategy = newValue }
    }
    /// The largest body this request's download accepts, in bytes: it tightens
    /// ``DownloaderConfig/maximumResponseSize`` (never loosens it), checked from Content-Length and
    /// while streaming, failing with ``WebImageError/Code/responseTooLarge``. Callers with different
    /// limits never share a download. Nil uses the downloader's.
    public var maximumResponseSize: Int? {
        get { storage.maximumResponseSize }
        set { mutableStorage().maximumResponseSize = newValue }
    }
    /// Bytes of the body of a response refused for its status (a 403, a 404) that the download
    /// reads and keeps in the error (``WebImageError/responseBody``), for origins that say in the
    /// body what went wrong (S3's XML error). Nil or 0 keeps none (the body is not read).
    public var errorBodyLimit: Int? {
        get { storage.errorBodyLimit }
        set { mutableStorage().errorBodyLimit = newValue }
    }
    /// Validators of a cached copy: the downloader sends If-None-Match / If-Modified-Since and
    /// reports 304 as ``WebImageError/Code/cacheNotModified`` with the response's new validators.
    public var validators: HTTPValidators? {
        get { storage.validators }
        set { mutableStorage().validators = newValue }
    }
    /// The exact decode options for this request. When set, the thumbnail, scale, byte-budget and
    /// limit fields are not consulted: the manager sets it once per load (derived from the
    /// filtered cache key) so that its cache and its loader decode the same bytes alike.
    public var decodeOptions: DecodeOptions? {
        get { storage.decodeOptions }
        set { mutableStorage().decodeOptions = newValue }
    }

    /// A context with any of its settings; nil leaves a setting at its default.
    public init(imageCoder: (any ImageCoding)? = nil, thumbnailPixelSize: PixelSize? = nil,
                preserveAspectRatio: Bool? = nil, scaleFactor: Double? = nil,
                scaleDownLimitBytes: Int? = nil, decodeLimits: DecodeLimits? = nil,
                userInfo: [String: any Sendable] = [:],
                queryCacheType: ImageCacheType? = nil, storeCacheType: ImageCacheType? = nil,
                originalQueryCacheType: ImageCacheType? = nil, originalStoreCacheType: ImageCacheType? = nil,
                imageCache: (any ImageCaching)? = nil, originalImageCache: (any ImageCaching)? = nil,
                cacheKeyFilter: CacheKeyFilter? = nil, cacheSerializer: ImageCacheSerializer? = nil,
                imageEncodeOptions: EncodeOptions? = nil, callbackQueue: CallbackQueue? = nil) {
        storage = Storage()
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
}

extension DecodeOptions {
    /// The byte budget `scaleDownLargeImages` applies: 90 MiB (SDWebImage's macOS value).
    public static let defaultScaleDownLimitBytes = 90 * 1024 * 1024
}
