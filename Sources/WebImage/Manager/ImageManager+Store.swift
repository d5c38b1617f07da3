import WebImageCodecs
import WebImageLoading
import Dispatch
import Foundation

/// The pipeline's last steps: transform, original store, final store, completion.
extension ImageManager {
    /// Whether `image` is transformed: animated images only with `transformAnimatedImage`.
    func shouldTransform(_ image: Image, _ request: ImageManagerRequest) -> Bool {
        request.transformer != nil && (!image.isAnimated || request.options.contains(.transformAnimatedImage))
    }

    /// Transforms (off the caller's thread), stores and completes a finished image that came from
    /// the loader (`cacheType` none) or from the original's cache entry.
    func finish(_ request: ImageManagerRequest, image: Image, data: Data?, cacheType: ImageCacheType,
                response: ImageResponseInfo?) {
        let source = ImageManagerSource(image: image, data: data, cacheType: cacheType, response: response)
        guard let transformer = request.transformer, shouldTransform(image, request) else {
            store(request, source: source, final: image, finalData: source.isThumbnail ? nil : data)
            return
        }
        DispatchQueue.global(qos: .userInitiated).async { [self] in
            guard !request.operation.isCancelled else { return }
            // A nil result keeps the original image and its bytes.
            if let transformed = transformer.transformedImage(image, forKey: request.key ?? "") {
                store(request, source: source, final: transformed, finalData: nil)
            } else {
                store(request, source: source, final: image, finalData: source.isThumbnail ? nil : data)
            }
        }
    }

    private func store(_ request: ImageManagerRequest, source: ImageManagerSource, final: Image, finalData: Data?) {
        guard !request.operation.isCancelled else { return }
        // Only `waitStoreCache` needs to hear when the writes are done.
        let group = request.options.contains(.waitStoreCache) ? DispatchGroup() : nil
        if request.isDerived {
            storeOriginal(request, source: source, group: group)
        }
        storeFinal(request, source: source, image: final, data: finalData, group: group)
        let result = request.result(image: final, data: finalData, cacheType: source.cacheType,
                                    byteCount: source.data?.count ?? 0, response: source.response)
        if let group {
            group.notify(queue: .global(qos: .userInitiated)) { request.operation.deliverFinal(result) }
        } else {
            request.operation.deliverFinal(result)
        }
    }

    /// The original store: the original under the original key (default: disk only). A thumbnail is not the
    /// original, so only its bytes are stored; bytes read from a cache are not written back.
    private func storeOriginal(_ request: ImageManagerRequest, source: ImageManagerSource, group: DispatchGroup?) {
        var cacheType = request.originalStoreCacheType
        if source.cacheType != .none || forbidsDiskStore(request, response: source.response) {
            cacheType = cacheType.removingDisk
        }
        let image = source.isThumbnail ? nil : source.image
        write(request, image: image, data: source.data, subject: source.image, key: request.originalKey,
              cache: request.originalCache, cacheType: cacheType, validators: validatorsToStore(from: source.response),
              group: group)
    }

    /// The final store: the final image under the full key (default: memory and disk).
    private func storeFinal(_ request: ImageManagerRequest, source: ImageManagerSource, image: Image, data: Data?,
                            group: DispatchGroup?) {
        var cacheType = request.storeCacheType
        if forbidsDiskStore(request, response: source.response) { cacheType = cacheType.removingDisk }
        // Only when the final key is the original's do the validators describe these bytes.
        let validators = request.isDerived ? nil : validatorsToStore(from: source.response)
        write(request, image: image, data: data, subject: image, key: request.key, cache: request.cache,
              cacheType: cacheType, validators: validators, group: group)
    }

    /// Stores `image` and/or `data` under `key`; `subject` is what the serializer is shown.
    private func write(_ request: ImageManagerRequest, image: Image?, data: Data?, subject: Image, key: String?,
                       cache: any ImageCaching, cacheType: ImageCacheType, validators: HTTPValidators?,
                       group: DispatchGroup?) {
        guard let key, cacheType != .none, image != nil || data != nil else { return }
        var data = data
        if cacheType.includesDisk, let serializer = request.context.cacheSerializer {
            data = serializer.cacheData(for: subject, originalData: data, url: request.url)
        }
        // The validators go with the disk entry; `waitStoreCache` waits for both, so a process that
        // exits after the load keeps the validators its next refresh sends.
        group?.enter()
        cache.storeImage(image, data: data, validators: validators, forKey: key, options: request.options,
                         context: request.context, cacheType: cacheType) { _ in group?.leave() }
    }
}

/// What a finished image came from: its bytes, where they were, and the response.
struct ImageManagerSource: Sendable {
    let image: Image
    let data: Data?
    let cacheType: ImageCacheType
    let response: ImageResponseInfo?

    /// True when the image was decoded as a thumbnail: it is not the original, and its bytes are not its own.
    var isThumbnail: Bool { image.isThumbnail }

}
