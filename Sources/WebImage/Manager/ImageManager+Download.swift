import Foundation

/// Pipeline steps 8 and 9: whether to load, the loader request, and what its result means.
extension ImageManager {
    func download(_ request: ImageManagerRequest, cached: ImageCacheQueryResult?) {
        let url = request.url
        let cachedImage = cached?.image
        let refresh = cachedImage != nil && request.options.contains(.refreshCached)
        let wanted = !request.options.contains(.fromCacheOnly) && (cachedImage == nil || refresh)
        guard wanted, delegate?.imageManager(self, shouldDownloadImageFor: url) ?? true else {
            // A hit, or a miss that may not be loaded: no image and no error (SDWebImage's rule).
            request.operation.deliverFinal(request.result(
                image: cachedImage, data: cached?.data, cacheType: cachedImage == nil ? .none : cached!.cacheType,
                byteCount: cached?.data?.count ?? 0))
            return
        }
        guard request.loader.canRequest(url) else {
            if let cached, cachedImage != nil {
                request.operation.deliverFinal(request.result(image: cachedImage, data: cached.data,
                                                              cacheType: cached.cacheType,
                                                              byteCount: cached.data?.count ?? 0))
            } else {
                request.fail(WebImageError(.invalidURL,
                                           "No image loader handles \"\(url.scheme ?? "")\" URLs.", url: url))
            }
            return
        }
        var context = request.context
        if refresh, let cached {
            request.operation.deliverIntermediate(request.result(image: cachedImage, data: cached.data,
                                                                 cacheType: cached.cacheType,
                                                                 byteCount: cached.data?.count ?? 0))
            if context.validators == nil, let key = request.originalKey {
                context.validators = (request.originalCache as? any ImageCacheValidatorStoring)?.validators(forKey: key)
            }
        }
        let loaderRequest = request.with(context: context)
        let token = request.loader.requestImage(with: url, options: request.options, context: context,
                                                progress: request.progress) { [self] loaded in
            loaderFinished(loaderRequest, loaded, refreshing: refresh)
        }
        request.operation.setLoaderOperation(token)
    }

    private func loaderFinished(_ request: ImageManagerRequest, _ loaded: ImageLoadResult, refreshing: Bool) {
        let operation = request.operation
        guard !operation.isCancelled else { return }
        guard loaded.isFinished else {
            if let partial = loaded.image { deliverPartial(request, partial) }
            return
        }
        if let error = loaded.error {
            if refreshing, error.code == .cacheNotModified {
                // The cached copy is current: keep it, note the new validators, say nothing more.
                if let key = request.originalKey, let validators = loaded.response?.validators, !validators.isEmpty {
                    (request.originalCache as? any ImageCacheValidatorStoring)?.setValidators(validators, forKey: key)
                }
                operation.endSilently()
                return
            }
            if error.code != .cancelled, shouldBlock(request, error: error) {
                addFailedURL(request.url)
            }
            request.fail(error)
            return
        }
        guard let image = loaded.image else {
            request.fail(WebImageError(.badImageData, "The loader delivered no image.", url: request.url))
            if shouldBlock(request, error: WebImageError(.badImageData, "")) { addFailedURL(request.url) }
            return
        }
        if request.options.contains(.retryFailed) { removeFailedURL(request.url) }
        finish(request, image: image, data: loaded.data, cacheType: .none, response: loaded.response)
    }

    /// The delegate's verdict if it gives one, else the loader's.
    private func shouldBlock(_ request: ImageManagerRequest, error: WebImageError) -> Bool {
        if let verdict = delegate?.imageManager(self, shouldBlockFailedURL: request.url, error: error) {
            return verdict
        }
        return request.loader.shouldBlockFailedURL(request.url, error: error)
    }

    /// A progressive partial image, transformed like the final one, never stored.
    private func deliverPartial(_ request: ImageManagerRequest, _ partial: Image) {
        var image = partial
        if let transformer = request.transformer, shouldTransform(partial, request),
           let transformed = transformer.transformedImage(partial, forKey: request.key ?? "") {
            image = transformed
        }
        request.operation.deliverIntermediate(ImageManagerResult(image: image, cacheType: .none,
                                                                 isFinished: false, url: request.url))
    }
}
