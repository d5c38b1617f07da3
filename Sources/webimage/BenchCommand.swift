import ArgumentParser
import AsyncHTTPClient
import Foundation
import WebImage

/// `webimage bench`: the shared harness's subject contract — load one image set through the
/// library in a given mode and print one JSON line (see Benchmarks/README.md).
struct BenchCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "bench",
        abstract: "Load an image set from a bench origin (cold, warm-disk or warm-memory) and print one JSON line."
    )

    enum Mode: String, ExpressibleByArgument, CaseIterable {
        case cold, warmDisk = "warm-disk", warmMemory = "warm-memory"
    }

    @Option(help: "Origin base URL (serves manifest.json and the set's files).")
    var base: String
    @Option(help: "Image set name from the manifest, e.g. jpeg-medium.")
    var set: String
    @Option(help: "cold, warm-disk or warm-memory.")
    var mode: Mode
    @Option(help: "Loads in flight at once.")
    var concurrency = 6
    @Option(help: "Disk cache directory.")
    var cacheDir: String
    @Option(help: "Decode to fit NxN (0 = full size).")
    var thumbnail = 0
    @Option(help: "Name reported in the JSON line.")
    var name = "webimage"
    @Option(help: "Memory cache cost limit in bytes (default 4 GiB: the whole set). Smaller limits make the cache evict as it loads, the steady state of a long-running process.")
    var memoryLimit: Int?
    @Flag(help: "Keep loaded images in the memory cache only and store no originals, writing nothing to the disk cache: what a run costs without the cache file writes (cold and warm-memory only).")
    var memoryOnly = false
    @Option(name: .customLong("disk-layout"), help: "The disk cache's layout: files (one file per entry) or packed (segment files with an index).")
    var diskLayout: DiskCacheLayout = .files

    func validate() throws {
        guard URL(string: base)?.scheme != nil else { throw ValidationError("--base must be a URL, got '\(base)'.") }
        guard concurrency >= 1 else { throw ValidationError("--concurrency must be at least 1.") }
        guard thumbnail >= 0 else { throw ValidationError("--thumbnail must be 0 or more.") }
        if let memoryLimit, memoryLimit < 1 { throw ValidationError("--memory-limit must be at least 1 byte.") }
        if memoryOnly, mode == .warmDisk {
            throw ValidationError("--memory-only writes nothing to the disk cache, so warm-disk would have nothing to read; use it with cold or warm-memory.")
        }
    }

    func run() async throws {
        let urls = try await BenchManifest.urls(base: base, set: set)
        var config = DownloaderConfig()
        config.maxConcurrentDownloads = concurrency
        config.maxConcurrentDownloadsPerHost = concurrency  // the harness serves every image from one host
        let pipeline = BenchPipeline(downloader: ImageDownloader(config: config),
                                     cacheDirectory: URL(fileURLWithPath: cacheDir),
                                     thumbnail: thumbnail, concurrency: concurrency, memoryLimit: memoryLimit,
                                     memoryOnly: memoryOnly, diskLayout: diskLayout)
        let timing: BenchTiming
        do {
            timing = try await measure(pipeline, urls)
            try await pipeline.downloader.shutdown()
        } catch {
            try? await pipeline.downloader.shutdown()
            throw error
        }
        var line = JSONLine()
        line.add("peer", name); line.add("set", set); line.add("mode", mode.rawValue)
        line.add("images", urls.count); line.add("seconds", timing.seconds)
        line.add("images_per_s", Double(urls.count) / timing.seconds)
        line.add("cpu_ms_per_image", timing.cpuSeconds * 1000 / Double(urls.count))
        line.add("peak_rss_mb", BenchPipeline.peakRSSMegabytes())
        line.add("concurrency", concurrency); line.add("thumbnail", thumbnail)
        if let memoryLimit { line.add("memory_limit", memoryLimit) }
        if memoryOnly { line.add("memory_only", true) }
        line.add("disk_layout", diskLayout.rawValue)
        line.add("pool_hits", timing.poolHits); line.add("pool_misses", timing.poolMisses)
        line.add("pool_hit_ratio", timing.poolHitRatio)
        print(line.text)
    }

    /// Runs the timed part of `mode` and returns its wall and CPU time. Cold includes waiting
    /// for the disk writes, so the cache really holds every image when the clock stops.
    private func measure(_ pipeline: BenchPipeline, _ urls: [URL]) async throws -> BenchTiming {
        switch mode {
        case .cold:
            await pipeline.clearDisk()
            return try await pipeline.timed {
                try await pipeline.load(urls, requiring: .none)
                pipeline.syncDisk()
                return nil  // cold includes waiting for the disk writes
            }
        case .warmDisk:
            pipeline.syncDisk()
            if memoryLimit != nil {
                // Steady state: an untimed pass fills the memory cache to its limit, so the timed
                // pass evicts as it loads, as a long-running process does.
                try await pipeline.load(urls, requiring: .disk)
            }
            return try await pipeline.timed { try await pipeline.load(urls, requiring: .disk) }
        case .warmMemory:
            await pipeline.clearDisk()
            try await pipeline.load(urls, requiring: .none)
            return try await pipeline.timed { try await pipeline.load(urls, requiring: .memory) }
        }
    }
}

/// Reads the bench origin's manifest and lists one set's image URLs in manifest order.
enum BenchManifest {
    static func urls(base: String, set: String) async throws -> [URL] {
        let root = base.hasSuffix("/") ? String(base.dropLast()) : base
        let response = try await HTTPClient.shared.get(url: root + "/manifest.json").get()
        guard response.status == .ok, let body = response.body else {
            throw ValidationError("Cannot read \(root)/manifest.json (HTTP \(response.status.code)).")
        }
        struct Manifest: Decodable { struct File: Decodable { let path: String; let set: String }; let files: [File] }
        let manifest = try JSONDecoder().decode(Manifest.self, from: Data(body.readableBytesView))
        let urls = manifest.files.filter { $0.set == set }.compactMap { URL(string: root + "/" + $0.path) }
        guard !urls.isEmpty else { throw ValidationError("The manifest has no files in set '\(set)'.") }
        return urls
    }
}
