import Foundation
import WebImage

/// What `webimage bench` times: loads through one ``ImageManager`` over an ``ImageCache`` in the
/// bench's cache directory (memory cache, disk cache, downloader, decode — the library's real
/// pipeline, as an application would use it).
struct BenchPipeline: Sendable {
    let downloader: ImageDownloader
    let cache: ImageCache
    let manager: ImageManager
    let context: WebImageContext
    let concurrency: Int

    /// `memoryOnly` stores loaded images in the memory cache only and originals nowhere, so a run
    /// shows what the pipeline costs without the disk cache's file writes.
    init(downloader: ImageDownloader, cacheDirectory: URL, thumbnail: Int, concurrency: Int, memoryLimit: Int? = nil,
         memoryOnly: Bool = false, diskLayout: DiskCacheLayout = .files) {
        self.downloader = downloader
        var config = ImageCacheConfig()
        config.maxMemoryCost = memoryLimit ?? 4 << 30
        config.disk.maxDiskSize = 4 << 30
        config.disk.layout = diskLayout
        cache = ImageCache(namespace: "bench", directory: cacheDirectory, config: config)
        cache.memoryCache.maxEntryFraction = 1
        manager = ImageManager(cache: cache, loader: downloader)
        var context = WebImageContext()
        if thumbnail > 0 { context.thumbnailPixelSize = PixelSize(width: thumbnail, height: thumbnail) }
        if memoryOnly {
            context.storeCacheType = .memory
            context.originalStoreCacheType = ImageCacheType.none
        }
        self.context = context
        self.concurrency = concurrency
    }

    /// Empties the disk cache and waits until it is empty.
    func clearDisk() async { await cache.clear(cacheType: .disk) }

    /// Waits for the disk cache's I/O queue: opens the cache (loads its index) before a timed part,
    /// or waits until every disk write asked for so far has finished.
    func syncDisk() { _ = cache.totalDiskCount }

    /// Runs `body` and returns its wall time (up to the instant `body` returns, else until it
    /// ends) and the process's CPU time (user + system, all threads) in seconds: CPU per image
    /// shows the pipeline's cost apart from waiting.
    func timed(_ body: () async throws -> ContinuousClock.Instant?) async throws -> BenchTiming {
        let pool = BitmapPool.shared.statistics
        // The CPU reading (a system call) comes first, so the timed part does not include it.
        let cpuStart = Self.processCPUSeconds(), start = ContinuousClock.now
        let end = try await body() ?? ContinuousClock.now
        let elapsed = end - start
        let poolAfter = BitmapPool.shared.statistics
        return BenchTiming(seconds: Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18,
                           cpuSeconds: Self.processCPUSeconds() - cpuStart,
                           poolHits: poolAfter.hits - pool.hits, poolMisses: poolAfter.misses - pool.misses)
    }

    static func processCPUSeconds() -> Double {
        var usage = rusage()
        guard getrusage(RUSAGE_SELF.rawValue, &usage) == 0 else { return 0 }
        func seconds(_ t: timeval) -> Double { Double(t.tv_sec) + Double(t.tv_usec) / 1e6 }
        return seconds(usage.ru_utime) + seconds(usage.ru_stime)
    }

    /// Loads every URL through the manager's completion API with at most `concurrency` loads in
    /// flight, `requiring` where each image must come from. Completions run inline (no queue hop),
    /// so a memory hit costs what the manager costs, not a task switch.
    @discardableResult
    func load(_ urls: [URL], requiring expected: ImageCacheType) async throws -> ContinuousClock.Instant {
        var context = self.context
        context.callbackQueue = .immediate
        let run = BenchRun(urls: urls, concurrency: concurrency, expected: expected, manager: manager,
                           context: context)
        return try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<ContinuousClock.Instant, any Error>) in
            run.start(continuation)
        }
    }

    /// The process's peak resident set size in MB (VmHWM).
    static func peakRSSMegabytes() -> Double {
        guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8),
              let line = status.split(separator: "\n").first(where: { $0.hasPrefix("VmHWM:") }),
              let kb = Double(line.split(separator: " ").dropFirst().first ?? "") else { return 0 }
        return kb / 1024
    }
}

/// The timed part's wall time and the CPU time the process spent in it.
struct BenchTiming: Sendable {
    let seconds: Double
    let cpuSeconds: Double
    /// Bitmaps the timed part filled into recycled memory, and into fresh memory.
    let poolHits: Int
    let poolMisses: Int

    /// poolHits / (poolHits + poolMisses); 0 when nothing was decoded.
    var poolHitRatio: Double {
        poolHits + poolMisses == 0 ? 0 : Double(poolHits) / Double(poolHits + poolMisses)
    }
}

/// A bench run that cannot be counted (a failed load or a cache miss where a hit was required).
struct BenchFailure: Error, CustomStringConvertible {
    let url: URL
    let reason: String
    var description: String { "\(url.absoluteString): \(reason)" }
}
