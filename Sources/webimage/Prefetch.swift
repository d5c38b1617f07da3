import Foundation
import WebImage

/// `webimage prefetch` through the library's ``ImagePrefetcher``: each URL one low-priority load,
/// a few at a time; failures are counted as skipped.
enum Prefetch {
    /// SDWebImage's `maxConcurrentPrefetchCount` default.
    static let defaultConcurrency = 3

    static func run(_ urls: [URL], stack: LoadingStack, options: WebImageOptions, context: WebImageContext,
                    concurrency: Int = defaultConcurrency, bar: ProgressBar) async -> PrefetchSummary {
        let prefetcher = ImagePrefetcher(manager: ImageManager(cache: stack.cache, loader: stack.loaders))
        prefetcher.maxConcurrentPrefetchCount = max(1, concurrency)
        // Low priority unless asked otherwise; the process ends right after, so wait for the disk.
        var requested = options.union(.waitStoreCache)
        if !requested.contains(.highPriority) { requested.insert(.lowPriority) }
        let start = ContinuousClock.now
        let (finished, skipped) = await withCheckedContinuation { continuation in
            prefetcher.prefetchURLs(urls, options: requested, context: context,
                                    progress: { _, _ in bar.advance() },
                                    completed: { finished, skipped in
                                        continuation.resume(returning: (finished, skipped))
                                    })
        }
        bar.finish()
        return PrefetchSummary(total: urls.count, finished: finished, skipped: skipped,
                               ms: (ContinuousClock.now - start).milliseconds)
    }
}
