import Foundation

extension ImageManager {
    /// Loads the image at `url` (SDWebImage's `loadImageWithURL:options:context:progress:completed:`).
    ///
    /// - `completed` runs exactly once with a final result, on `context.callbackQueue` or
    ///   ``CallbackQueue/shared``: an image, an error, or — for a `fromCacheOnly` miss or a download
    ///   the delegate declined — neither. Partial images (`progressiveLoad`) and the cached image of
    ///   a `refreshCached` load come before it with ``ImageManagerResult/isFinished`` false and
    ///   true respectively; a `refreshCached` revalidation answered 304 adds nothing.
    /// - A nil, empty or relative URL fails with ``WebImageError/Code/invalidURL``; a URL on the
    ///   failed-URL list with ``WebImageError/Code/blackListed`` unless `retryFailed` is set.
    /// - Returns: The operation, to cancel the load (the completion then gets
    ///   ``WebImageError/Code/cancelled``, once).
    @discardableResult
    public func loadImage(with url: URL?, options: WebImageOptions = [], context: WebImageContext = .none,
                          progress: ImageLoadProgress? = nil,
                          completed: @escaping @Sendable (ImageManagerResult) -> Void) -> ImageManagerOperation {
        start(url, options: options, context: context, progress: progress, receiver: .completion(completed))
    }

    /// Runs the pipeline, reporting every event (results and the silent end of a refresh).
    func start(_ url: URL?, options: WebImageOptions, context: WebImageContext, progress: ImageLoadProgress?,
               receiver: ImageManagerOperation.Receiver) -> ImageManagerOperation {
        let absolute = url?.absoluteString ?? ""
        guard let url, !absolute.isEmpty else {
            let operation = ImageManagerOperation(url: url, callbackQueue: context.callbackQueue ?? .shared,
                                                  delivery: receiver)
            operation.deliverFinal(.failure(WebImageError(.invalidURL, "The image URL is nil or empty."), url: url))
            return operation
        }
        let isFailed = isFailedURL(url)
        let (options, context) = processed(url, options, context)
        let operation = ImageManagerOperation(url: url, callbackQueue: context.callbackQueue ?? .shared,
                                              delivery: receiver)
        guard url.scheme != nil else {
            operation.deliverFinal(.failure(WebImageError(
                .invalidURL, "\"\(absolute)\" is not an absolute URL (it has no scheme)."), url: url))
            return operation
        }
        if isFailed, !options.contains(.retryFailed) {
            operation.deliverFinal(.failure(WebImageError(
                .blackListed, "This URL failed before and is on the failed-URL list; load it with "
                    + ".retryFailed or call removeFailedURL(_:) to try again."), url: url))
            return operation
        }
        let transformer = context.disablesTransformer ? nil : context.imageTransformer
        // The context already carries the manager's key filter (see `processed`).
        let originalKey = context.cacheKeyFilter.map { $0.key(for: url) } ?? absolute
        let key = Self.derivedKey(originalKey, context: context, transformer: transformer)
        if let image = memoryHit(forKey: key, options: options, context: context) {
            operation.deliverFinal(ImageManagerResult(image: image, cacheType: .memory, url: url))
            return operation
        }
        let request = ImageManagerRequest(url: url, options: options, context: context, operation: operation,
                                          progress: progress, key: key, originalKey: originalKey,
                                          transformer: transformer, manager: self)
        queryCache(request)
        // After the query: a result delivered synchronously never needs tracking.
        register(operation)
        return operation
    }

    /// Step 6's memory part, answered at once when the cache is an ``ImageCache`` and the request
    /// would take a memory hit as it is: what the full query would deliver, without its machinery.
    private func memoryHit(forKey key: String?, options: WebImageOptions, context: WebImageContext) -> Image? {
        guard let key, options.isDisjoint(with: [.fromLoaderOnly, .refreshCached, .queryMemoryData]),
              (context.queryCacheType ?? .all).includesMemory else { return nil }
        let cache = context.imageCache.map { $0 as? ImageCache } ?? defaultImageCache
        return cache?.memoryHit(forKey: key, options: options)
    }
}
