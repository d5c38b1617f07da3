import WebImageCodecs
import WebImageLoading
import Foundation

/// The pipeline's download decision and load steps: whether to load, the loader request, and
/// what its result means.
extension ImageManager {
    func download(_ request: ImageManagerRequest, cached: ImageCacheQueryResult?) {
        let url = request.url
        let cachedImage = cached?.image
        var decided = Revalidation.none
        if let cached, cachedImage != nil, let verdict = revalidationOfHit(request, cached) {
            guard verdict.isRevalidating else { return }  // delivered: fresh, or revalidated in the background
            decided = verdict
        }
        let revalidation = decided
        let wanted = !request.options.contains(.fromCacheOnly) && (cachedImage == nil || revalidation.isRevalidating)
        let allowed = wanted && (delegate?.imageManager(self, shouldDownloadImageFor: url) ?? true)
        guard allowed, request.loader.canRequest(url) else {
            if allowed, cachedImage == nil, Self.isHostlessWebURL(url) {
                // Not a refusal but a malformed URL: invalidURL. (SDWebImage's downloader gives
                // invalidURL only for a nil URL; a hostless one goes on to URLSession and its error.)
                request.fail(WebImageError(.invalidURL, "\"\(url.absoluteString)\" has no host.", url: url))
                return
            }
            // A hit, or a miss that may not be loaded (`fromCacheOnly`, the delegate or the loader
            // declined): the cached image or nothing, and no error (SDWebImage's manager does the
            // same when its download decision says no).
            request.operation.deliverFinal(request.result(
                image: cachedImage, data: cached?.data, cacheType: cachedImage == nil ? .none : cached!.cacheType,
                byteCount: cached?.data?.count ?? 0))
            return
        }
        var context = request.context
        var loaderOptions = request.options
        if revalidation.isRevalidating, let cached {
            if case .refresh = revalidation {
                request.operation.deliverIntermediate(request.result(image: cachedImage, data: cached.data,
                                                                     cacheType: cached.cacheType,
                                                                     byteCount: cached.data?.count ?? 0))
            }
            // No partial images over a full cached one (SDWebImage clears progressiveLoad too).
            loaderOptions.remove(.progressiveLoad)
            if context.validators == nil { context.validators = revalidation.stored?.conditional }
        }
        let loaderRequest = request.with(context: context)
        let stage = request.operation.beginStage()
        let token = request.loader.requestImage(with: url, options: loaderOptions, context: context,
                                                progress: request.progress) { [self] loaded in
            loaderFinished(loaderRequest, loaded, revalidation: revalidation)
        }
        request.operation.setLoaderOperation(token, stage: stage)
    }

    private func loaderFinished(_ request: ImageManagerRequest, _ loaded: ImageLoadResult, revalidation: Revalidation) {
        let operation = request.operation
        guard !operation.isCancelled else { return }
        let refreshing = revalidation.isRevalidating
        guard loaded.isFinished else {
            if !refreshing, let partial = loaded.image { deliverPartial(request, partial) }
            return
        }
        if let error = loaded.error {
            if refreshing, error.code == .cacheNotModified {
                endUnchangedRevalidation(request, revalidation, response: loaded.response)
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
        if refreshing, let data = loaded.data {
            finishRevalidation(request, revalidation, image: image, data: data, response: loaded.response)
        } else {
            finish(request, image: image, data: loaded.data, cacheType: .none, response: loaded.response)
        }
    }

    /// True for an `http`/`https` URL without a host (`http:///a.png`), which no loader can load.
    static func isHostlessWebURL(_ url: URL) -> Bool {
        guard let scheme = url.scheme?.lowercased(), scheme == "http" || scheme == "https" else { return false }
        return url.host?.isEmpty ?? true
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
