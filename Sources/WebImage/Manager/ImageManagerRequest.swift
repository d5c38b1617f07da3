import WebImageCodecs
import WebImageLoading
import Foundation

/// One load resolved once, before its first pipeline step: the processed options and context,
/// the keys, the decode options (derived from the filtered key), every cache type with its
/// default applied, the callback queue, and the cache and loader to use. The steps read only this.
/// A class, so each step's closure captures one reference rather than copying it all.
final class ImageManagerRequest: Sendable {
    let url: URL
    let options: WebImageOptions
    /// The processed context, with ``decodeOptions`` set: what the loader, the original's query and
    /// the stores are given (a refresh adds the cached copy's validators before loading).
    let context: WebImageContext
    /// The context for the final key's query: its bytes are the final image's own, so they decode
    /// without the thumbnail size the key already names.
    let queryContext: WebImageContext
    let operation: ImageManagerOperation
    let progress: ImageLoadProgress?
    /// The final key (thumbnail and transformer parts included); nil = do not cache.
    let key: String?
    /// The original image's key (the key filter's, else the absolute string); nil = do not cache.
    let originalKey: String?
    /// How the original's bytes decode for this load (thumbnail, scale, budget, limits).
    let decodeOptions: DecodeOptions
    let queryCacheType: ImageCacheType
    let storeCacheType: ImageCacheType
    let originalQueryCacheType: ImageCacheType
    let originalStoreCacheType: ImageCacheType
    let callbackQueue: CallbackQueue
    let cache: any ImageCaching
    let originalCache: any ImageCaching
    let loader: any ImageLoading
    let transformer: (any ImageTransforming)?

    init(_ load: PlannedLoad, operation: ImageManagerOperation, progress: ImageLoadProgress?) {
        url = load.url
        options = load.options
        self.operation = operation
        self.progress = progress
        key = load.key
        originalKey = load.originalKey
        transformer = load.transformer
        cache = load.cache
        originalCache = load.context.originalImageCache ?? load.cache
        loader = load.loader
        callbackQueue = load.callbackQueue
        let processed = load.context
        queryCacheType = processed.resolvedQueryCacheType
        storeCacheType = processed.resolvedStoreCacheType
        originalQueryCacheType = processed.resolvedOriginalQueryCacheType
        originalStoreCacheType = processed.resolvedOriginalStoreCacheType
        let decode = processed.resolvedDecodeOptions(for: load.options, cacheKey: load.originalKey)
        decodeOptions = decode
        var context = processed
        context.decodeOptions = decode
        self.context = context
        var finalDecode = decode
        finalDecode.thumbnailPixelSize = nil
        var queryContext = processed
        queryContext.decodeOptions = finalDecode
        self.queryContext = queryContext
    }

    private init(_ request: ImageManagerRequest, context: WebImageContext) {
        url = request.url
        options = request.options
        self.context = context
        queryContext = request.queryContext
        operation = request.operation
        progress = request.progress
        key = request.key
        originalKey = request.originalKey
        decodeOptions = request.decodeOptions
        queryCacheType = request.queryCacheType
        storeCacheType = request.storeCacheType
        originalQueryCacheType = request.originalQueryCacheType
        originalStoreCacheType = request.originalStoreCacheType
        callbackQueue = request.callbackQueue
        cache = request.cache
        originalCache = request.originalCache
        loader = request.loader
        transformer = request.transformer
    }

    /// This request with another context (a refresh's, carrying the cached copy's validators).
    func with(context: WebImageContext) -> ImageManagerRequest {
        ImageManagerRequest(self, context: context)
    }

    /// True when the final key differs from the original's (a thumbnail or a transformer).
    var isDerived: Bool { key != originalKey }

    /// A finished result for this request.
    func result(image: Image?, data: Data?, cacheType: ImageCacheType, byteCount: Int,
                response: ImageResponseInfo? = nil) -> ImageManagerResult {
        ImageManagerResult(image: image, data: data, cacheType: cacheType, isFinished: true, url: url,
                           byteCount: byteCount, response: response)
    }

    /// Ends the load with `error`.
    func fail(_ error: WebImageError) {
        operation.deliverFinal(.failure(error, url: url))
    }
}
