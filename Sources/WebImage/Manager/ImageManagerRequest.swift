import WebImageCodecs
import WebImageLoading
import Foundation

/// Everything one load carries through the manager's pipeline, resolved once at its start.
/// A class, so each pipeline step's closure captures one reference rather than copying it all.
final class ImageManagerRequest: Sendable {
    let url: URL
    let options: WebImageOptions
    /// The processed context (a refresh adds the cached copy's validators before loading).
    let context: WebImageContext
    let operation: ImageManagerOperation
    let progress: ImageLoadProgress?
    /// The final key (thumbnail and transformer parts included); nil = do not cache.
    let key: String?
    /// The original image's key (filter or absolute string only); nil = do not cache.
    let originalKey: String?
    let cache: any ImageCaching
    let originalCache: any ImageCaching
    let loader: any ImageLoading
    let transformer: (any ImageTransforming)?

    init(url: URL, options: WebImageOptions, context: WebImageContext, operation: ImageManagerOperation,
         progress: ImageLoadProgress?, key: String?, originalKey: String?,
         transformer: (any ImageTransforming)?, manager: ImageManager) {
        self.url = url
        self.options = options
        self.context = context
        self.operation = operation
        self.progress = progress
        self.transformer = transformer
        self.originalKey = originalKey
        self.key = key
        cache = context.imageCache ?? manager.imageCache
        originalCache = context.originalImageCache ?? context.imageCache ?? manager.imageCache
        loader = context.imageLoader ?? manager.imageLoader
    }

    private init(_ request: ImageManagerRequest, context: WebImageContext) {
        url = request.url
        options = request.options
        self.context = context
        operation = request.operation
        progress = request.progress
        key = request.key
        originalKey = request.originalKey
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
