import WebImageCodecs
import WebImageLoading
import Foundation

extension ImageManager {
    /// Loads the image at `url` (SDWebImage's `loadImageWithURL:options:context:progress:completed:`).
    ///
    /// - `completed` runs exactly once with a final result, on `context.callbackQueue` or
    ///   `CallbackQueue/shared`: an image, an error, or — for a `fromCacheOnly` miss, a download
    ///   the delegate declined, or a URL the loader does not handle (`canRequest` false, such as an
    ///   `ftp:` URL) — neither, as SDWebImage's manager does when its loader declines (its default
    ///   downloader declines no non-nil URL, so there an `ftp:` URL goes to URLSession). Partial
    ///   images (`progressiveLoad`) and the cached image of a `refreshCached` load come before it
    ///   with ``ImageManagerResult/isFinished`` false and true respectively; a `refreshCached`
    ///   revalidation that finds the same image (a 304, or the same bytes from an origin without
    ///   validators) adds nothing.
    /// - A nil, empty or relative URL, or an `http(s)` URL without a host, fails with
    ///   `WebImageError/Code/invalidURL`; a URL on the failed-URL list with
    ///   `WebImageError/Code/blackListed` unless `retryFailed` is set.
    /// - Returns: The operation, to cancel the load (the completion then gets
    ///   `WebImageError/Code/cancelled`, once).
    @discardableResult
    public func loadImage(with url: URL?, options: WebImageOptions = [], context: WebImageContext = .none,
                          progress: ImageLoadProgress? = nil,
                          completed: @escaping @Sendable (ImageManagerResult) -> Void) -> ImageManagerOperation {
        start(url, options: options, context: context, progress: progress, receiver: .completion(completed))
    }

    /// Runs the pipeline, reporting every event (results and the silent end of a refresh).
    func start(_ url: URL?, options: WebImageOptions, context: WebImageContext, progress: ImageLoadProgress?,
               receiver: ImageManagerOperation.Receiver) -> ImageManagerOperation {
        switch plan(url, options: options, context: context) {
        case .memoryHit(let image, let url, let queue):
            return answered(ImageManagerResult(image: image, cacheType: .memory, url: url), queue, receiver)
        case .failure(let error, let url, let queue):
            return answered(.failure(error, url: url), queue, receiver)
        case .pipeline(let load):
            return run(load, progress: progress, receiver: receiver)
        }
    }

    /// An already-finished operation whose one result is sent at once.
    private func answered(_ result: ImageManagerResult, _ queue: CallbackQueue,
                          _ receiver: ImageManagerOperation.Receiver) -> ImageManagerOperation {
        let operation = ImageManagerOperation(finishedWith: result.url, callbackQueue: queue)
        operation.send(result, isLast: true, to: receiver)
        return operation
    }

    /// Runs the pipeline from the cache query on (memory and disk query, original query, download
    /// decision, load, transform, stores, completion) for a load ``plan(_:options:context:)``
    /// could not answer at once.
    func run(_ load: PlannedLoad, progress: ImageLoadProgress?,
             receiver: ImageManagerOperation.Receiver) -> ImageManagerOperation {
        let operation = ImageManagerOperation(url: load.url, callbackQueue: load.callbackQueue, delivery: receiver)
        let request = ImageManagerRequest(load, operation: operation, progress: progress)
        queryCache(request)
        // After the query: a result delivered synchronously never needs tracking.
        register(operation)
        return operation
    }

    /// The URL check, block list, options processing and memory query: validates the URL, applies
    /// the failed-URL list, the manager's settings and options processor, and derives the cache
    /// keys. Returns the final result when that settles the load (a bad or failed URL, a memory
    /// hit), without allocating any of the pipeline's machinery.
    func plan(_ url: URL?, options: WebImageOptions, context: WebImageContext) -> LoadPlan {
        let absolute = url?.absoluteString ?? ""
        guard let url, !absolute.isEmpty else {
            return .failure(WebImageError(.invalidURL, "The image URL is nil or empty.", url: url), url: url,
                            callbackQueue: context.callbackQueue ?? .shared)
        }
        let isFailed = isFailedURL(url)
        let (options, context) = processed(url, options, context)
        let queue = context.callbackQueue ?? .shared
        guard Self.hasScheme(absolute) else {
            return .failure(WebImageError(
                .invalidURL, "\"\(absolute)\" is not an absolute URL (it has no scheme).", url: url), url: url,
                            callbackQueue: queue)
        }
        if isFailed, !options.contains(.retryFailed) {
            return .failure(WebImageError(
                .blackListed, "This URL failed before and is on the failed-URL list; load it with "
                    + ".retryFailed or call removeFailedURL(_:) to try again.", url: url), url: url,
                            callbackQueue: queue)
        }
        let transformer = context.disablesTransformer ? nil : context.imageTransformer
        // The context already carries the manager's key filter (see `processed`).
        let originalKey = context.cacheKeyFilter.map { $0.key(for: url) } ?? absolute
        let key = Self.derivedKey(originalKey, context: context, transformer: transformer)
        let cache = context.imageCache ?? imageCache
        if let image = memoryHit(forKey: key, options: options, context: context, cache: cache) {
            return .memoryHit(image, url: url, callbackQueue: queue)
        }
        return .pipeline(PlannedLoad(url: url, options: options, context: context, key: key,
                                     originalKey: originalKey, transformer: transformer, cache: cache,
                                     loader: context.imageLoader ?? imageLoader,
                                     callbackQueue: queue))
    }

    /// True when `absolute` starts with a URL scheme (`ALPHA *(ALPHA / DIGIT / "+" / "-" / ".")`
    /// then `:`): what `URL.scheme != nil` says, without building the scheme string.
    static func hasScheme(_ absolute: String) -> Bool {
        var utf8 = absolute.utf8.makeIterator()
        guard let first = utf8.next() else { return false }
        // Foundation reads a leading ":" as an empty scheme; a loader then refuses it.
        if first == UInt8(ascii: ":") { return true }
        guard (first | 0x20) >= UInt8(ascii: "a"), (first | 0x20) <= UInt8(ascii: "z") else { return false }
        while let byte = utf8.next() {
            switch byte {
            case UInt8(ascii: ":"): return true
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
                 UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "+"), UInt8(ascii: "-"), UInt8(ascii: "."):
                continue
            default: return false
            }
        }
        return false
    }

    /// The memory query answered at once, when the request would take a memory hit as it is and
    /// the cache can answer synchronously (`ImageCaching/memoryImage(forKey:options:)`): what
    /// the full query would deliver, without its machinery.
    private func memoryHit(forKey key: String?, options: WebImageOptions, context: WebImageContext,
                           cache: any ImageCaching) -> Image? {
        // With respectsHTTPFreshness a hit must be judged by its stored freshness first.
        guard let key, options.isDisjoint(with: [.fromLoaderOnly, .refreshCached, .queryMemoryData, .respectsHTTPFreshness]),
              context.resolvedQueryCacheType.includesMemory else { return nil }
        // A hit must be judged against the context's animated-image factory: the full query does.
        guard context.requiredAnimatedImageFactory(for: options) == nil else { return nil }
        return cache.memoryImage(forKey: key, options: options)
    }
}

/// What ``ImageManager/plan(_:options:context:)`` decided for a load.
enum LoadPlan {
    /// The image is in the memory cache: the load's one result.
    case memoryHit(Image, url: URL, callbackQueue: CallbackQueue)
    /// The load fails before any cache query (a bad or failed URL); the error names the URL.
    case failure(WebImageError, url: URL?, callbackQueue: CallbackQueue)
    /// The load needs the pipeline.
    case pipeline(PlannedLoad)
}

/// A load's processed inputs, cache keys, cache and loader, ready for the cache query (the rest
/// is resolved by ``ImageManagerRequest`` only when the memory query misses).
struct PlannedLoad {
    let url: URL
    let options: WebImageOptions
    let context: WebImageContext
    let key: String?
    let originalKey: String?
    let transformer: (any ImageTransforming)?
    let cache: any ImageCaching
    let loader: any ImageLoading
    let callbackQueue: CallbackQueue
}
