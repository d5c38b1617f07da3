import Foundation
@testable import WebImage
@testable import WebImageCodecs
@testable import WebImageLoading

/// A test cache that forwards SDWebImage's part of ``ImageCaching`` (query, store, remove,
/// contains, clear) to an `ImageCache`; an adopting type adds or changes only the capability
/// under test (everything else keeps the protocol's defaults).
protocol ForwardingCache: ImageCaching {
    var inner: ImageCache { get }
}

extension ForwardingCache {
    func queryImage(forKey key: String?, options: WebImageOptions, context: WebImageContext,
                    cacheType: ImageCacheType,
                    completion: @escaping @Sendable (ImageCacheQueryResult) -> Void) -> (any ImageCacheOperation)? {
        inner.queryImage(forKey: key, options: options, context: context, cacheType: cacheType, completion: completion)
    }

    func storeImage(_ image: Image?, data: Data?, forKey key: String?, options: WebImageOptions,
                    context: WebImageContext, cacheType: ImageCacheType,
                    completion: (@Sendable (WebImageError?) -> Void)?) {
        inner.storeImage(image, data: data, forKey: key, options: options, context: context,
                         cacheType: cacheType, completion: completion)
    }

    func removeImage(forKey key: String?, cacheType: ImageCacheType, completion: (@Sendable () -> Void)?) {
        inner.removeImage(forKey: key, cacheType: cacheType, completion: completion)
    }

    func containsImage(forKey key: String?, cacheType: ImageCacheType,
                       completion: @escaping @Sendable (ImageCacheType) -> Void) {
        inner.containsImage(forKey: key, cacheType: cacheType, completion: completion)
    }

    func clear(cacheType: ImageCacheType, completion: (@Sendable () -> Void)?) {
        inner.clear(cacheType: cacheType, completion: completion)
    }
}
