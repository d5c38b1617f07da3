import Foundation
import WebImage

/// The download → disk cache → decode → memory cache pipeline `webimage bench` times.
struct BenchPipeline: Sendable {
    let downloader: ImageDownloader
    let disk: DiskCache
    let memory: MemoryCache
    let context: WebImageContext
    let decodeOptions: DecodeOptions
    let concurrency: Int

    init(downloader: ImageDownloader, cacheDirectory: URL, thumbnail: Int, concurrency: Int) {
        self.downloader = downloader
        var diskConfig = DiskCacheConfig(directory: cacheDirectory, namespace: "bench")
        diskConfig.maxDiskSize = 4 << 30
        disk = DiskCache(config: diskConfig)
        memory = MemoryCache(costLimit: 4 << 30)
        memory.maxEntryFraction = 1
        var context = WebImageContext()
        if thumbnail > 0 { context.thumbnailPixelSize = PixelSize(width: thumbnail, height: thumbnail) }
        self.context = context
        decodeOptions = context.decodeOptions(for: [], cacheKey: nil)
        self.concurrency = concurrency
    }

    func clearDisk() { disk.removeAll() }

    /// Runs `body` and returns its wall time in seconds.
    func timed(_ body: () async throws -> Void) async throws -> Double {
        let start = ContinuousClock.now
        try await body()
        let elapsed = ContinuousClock.now - start
        return Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
    }

    /// Cold: download each URL, write its bytes to disk, keep the decoded image in memory.
    func loadFromNetwork(_ urls: [URL]) async throws {
        try await forEach(urls) { url in
            let result = try await downloader.loadImage(url, context: context)
            guard let image = result.image, let data = result.data else {
                throw BenchFailure(url: url, reason: "no image")
            }
            try disk.setData(data, forKey: url.absoluteString)
            memory.set(image, forKey: url.absoluteString)
        }
    }

    /// Warm disk: read each URL's bytes from disk and decode them into memory; no network.
    func loadFromDisk(_ urls: [URL]) async throws {
        try await forEach(urls) { url in
            guard let data = disk.data(forKey: url.absoluteString) else {
                throw BenchFailure(url: url, reason: "not in the disk cache (run cold first)")
            }
            let image = try CodersManager.shared.decode(data, options: decodeOptions)
            memory.set(image, forKey: url.absoluteString)
        }
    }

    /// Warm memory: every URL must be a memory hit.
    func loadFromMemory(_ urls: [URL]) throws {
        for url in urls where memory.get(forKey: url.absoluteString) == nil {
            throw BenchFailure(url: url, reason: "memory miss")
        }
    }

    /// Runs `body` for every URL with at most `concurrency` in flight.
    private func forEach(_ urls: [URL], _ body: @escaping @Sendable (URL) async throws -> Void) async throws {
        try await withThrowingTaskGroup(of: Void.self) { group in
            var next = 0
            while next < min(concurrency, urls.count) {
                let url = urls[next]
                group.addTask { try await body(url) }
                next += 1
            }
            while try await group.next() != nil, next < urls.count {
                let url = urls[next]
                group.addTask { try await body(url) }
                next += 1
            }
            try await group.waitForAll()
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

/// A bench run that cannot be counted (a failed load or a cache miss where a hit was required).
struct BenchFailure: Error, CustomStringConvertible {
    let url: URL
    let reason: String
    var description: String { "\(url.absoluteString): \(reason)" }
}
