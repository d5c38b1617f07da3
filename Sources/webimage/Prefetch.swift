import Foundation
import WebImage

/// Prefetching as SDWebImage's prefetcher does it: each URL is one low-priority manager load,
/// a few at a time; failures are counted as skipped.
enum Prefetch {
    /// SDWebImage's `maxConcurrentPrefetchCount` default.
    static let defaultConcurrency = 3

    static func run(_ urls: [URL], stack: LoadingStack, options: WebImageOptions, context: WebImageContext,
                    concurrency: Int = defaultConcurrency, bar: ProgressBar) async -> PrefetchSummary {
        let manager = ImageManager(cache: stack.cache, loader: stack.loaders)
        // Low priority unless asked otherwise; the process ends right after, so wait for the disk.
        var requested = options.union(.waitStoreCache)
        if !requested.contains(.highPriority) { requested.insert(.lowPriority) }
        let loadOptions = requested
        let start = ContinuousClock.now
        var skipped = 0
        await withTaskGroup(of: Bool.self) { group in
            var pending = urls[...]
            var running = 0
            while true {
                // Keep `concurrency` loads running; start one more each time one finishes.
                while running < max(1, concurrency), let url = pending.popFirst() {
                    group.addTask {
                        let result = try? await manager.image(for: url, options: loadOptions, context: context)
                        bar.advance(bytes: result?.byteCount ?? 0, failed: result == nil)
                        return result != nil
                    }
                    running += 1
                }
                guard let ok = await group.next() else { break }
                running -= 1
                if !ok { skipped += 1 }
            }
        }
        bar.finish()
        return PrefetchSummary(total: urls.count, finished: urls.count, skipped: skipped,
                               ms: (ContinuousClock.now - start).milliseconds)
    }
}
