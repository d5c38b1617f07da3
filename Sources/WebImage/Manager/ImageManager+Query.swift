import WebImageCodecs
import WebImageLoading
import Foundation

/// The pipeline's memory query and disk query, then the original query when a derived key misses.
extension ImageManager {
    func queryCache(_ request: ImageManagerRequest) {
        if request.options.contains(.fromLoaderOnly) {
            download(request, cached: nil)
            return
        }
        // The key already names the thumbnail: the query context decodes without shrinking again.
        let stage = request.operation.beginStage()
        let query = request.cache.queryImage(forKey: request.key, options: request.options,
                                             context: request.queryContext,
                                             cacheType: request.queryCacheType) { [self] found in
            guard !request.operation.isCancelled else { return }
            if found.image == nil, request.isDerived {
                queryOriginal(request)
            } else {
                download(request, cached: found.image == nil ? nil : found)
            }
        }
        request.operation.setCacheOperation(query, stage: stage)
    }

    /// A thumbnail or transformed key missed: a cached original (decoded as a thumbnail when one is
    /// asked for) is transformed without downloading, ignoring `refreshCached`.
    private func queryOriginal(_ request: ImageManagerRequest) {
        let cacheType = request.originalQueryCacheType
        guard cacheType != .none, request.originalKey != nil else {
            download(request, cached: nil)
            return
        }
        let stage = request.operation.beginStage()
        let query = request.originalCache.queryImage(forKey: request.originalKey, options: request.options,
                                                     context: request.context,
                                                     cacheType: cacheType) { [self] found in
            guard !request.operation.isCancelled else { return }
            guard let image = found.image else {
                download(request, cached: nil)
                return
            }
            finish(request, image: image, data: found.data, cacheType: found.cacheType, response: nil)
        }
        request.operation.setCacheOperation(query, stage: stage)
    }
}
