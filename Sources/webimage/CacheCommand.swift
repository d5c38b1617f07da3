import ArgumentParser
import Foundation
import WebImage

/// `webimage cache info|clean|clear`: inspect and empty the disk cache the other commands use.
struct CacheCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "cache",
        abstract: "Inspect, clean or clear the disk cache.",
        subcommands: [Info.self, Clean.self, Clear.self]
    )

    /// `cache info`: where the cache is, how many entries and bytes it holds, and its size limit.
    struct Info: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Print the cache's path, entry count, size and limit.")

        @OptionGroup var location: CacheLocation

        @Flag(help: "Print one JSON object.")
        var json = false

        func run() throws {
            let cache = location.makeDiskCache()
            let summary = CacheSummary(cache)
            print(json ? summary.jsonLine.text : summary.readable)
        }
    }

    /// `cache clean`: SDWebImage's `deleteOldFiles`: removes expired entries, then trims to the limit.
    struct Clean: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Remove expired entries and trim the cache to its size limit.")

        @OptionGroup var location: CacheLocation

        @Flag(help: "Print one JSON object.")
        var json = false

        func run() throws {
            CacheCommand.remove(from: location, json: json) { $0.removeExpiredData() }
        }
    }

    /// `cache clear`: deletes every entry.
    struct Clear: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Remove every entry from the cache.")

        @OptionGroup var location: CacheLocation

        @Flag(help: "Print one JSON object.")
        var json = false

        func run() throws {
            CacheCommand.remove(from: location, json: json) { $0.removeAll() }
        }
    }

    /// Runs `removal` on the cache at `location`, then prints what it removed and what is left.
    static func remove(from location: CacheLocation, json: Bool, _ removal: (DiskCache) -> Void) {
        let cache = location.makeDiskCache()
        let before = CacheSummary(cache)
        removal(cache)
        report(before: before, after: CacheSummary(cache), json: json)
    }

    /// Prints what a clean or clear removed and what is left.
    static func report(before: CacheSummary, after: CacheSummary, json: Bool) {
        let removed = max(0, before.count - after.count)
        let freed = max(0, before.bytes - after.bytes)
        if json {
            var line = after.jsonLine
            line.add("removed", removed)
            line.add("freedBytes", freed)
            print(line.text)
        } else {
            print("Removed \(removed) entries (\(ByteCountText.format(freed))).")
            print(after.readable)
        }
    }
}

/// `--cache-dir`, shared by every command that uses the disk cache.
struct CacheLocation: ParsableArguments {
    @Option(name: .customLong("cache-dir"),
            help: "The cache root directory (default: $XDG_CACHE_HOME/webimage or ~/.cache/webimage).")
    var cacheDir: String?

    @Option(name: .customLong("disk-layout"),
            help: "files (one file per entry) or packed (segment files with an index). Default: what the cache directory holds, else files.")
    var diskLayout: DiskCacheLayout?

    /// The root directory: `--cache-dir`, else the library's default.
    var directory: URL {
        cacheDir.map { URL(fileURLWithPath: $0, isDirectory: true) } ?? DiskCacheConfig.defaultDirectory
    }

    /// The disk settings: the library's default namespace and limits, in `--disk-layout`'s layout,
    /// else the one the directory holds.
    var diskConfig: DiskCacheConfig {
        var config = DiskCacheConfig(directory: directory)
        config.layout = diskLayout ?? Self.layoutFound(in: config)
        return config
    }

    /// The disk cache under ``directory``.
    func makeDiskCache() -> DiskCache {
        DiskCache(config: diskConfig)
    }

    /// An image cache over the same directory, as `get` and `prefetch` use.
    func makeImageCache() -> ImageCache {
        var config = ImageCacheConfig()
        config.disk = diskConfig
        return ImageCache(namespace: config.disk.namespace, directory: directory, config: config)
    }

    /// ``DiskCacheLayout/packed`` when the namespace directory holds a packed store, else files.
    static func layoutFound(in config: DiskCacheConfig) -> DiskCacheLayout {
        let packed = config.directory.appendingPathComponent(config.namespace).appendingPathComponent(".packed").path
        var isDirectory: ObjCBool = false
        return FileManager.default.fileExists(atPath: packed, isDirectory: &isDirectory) && isDirectory.boolValue ? .packed : .files
    }
}

/// The numbers `cache info` reports.
struct CacheSummary {
    let path: String
    let count: Int
    let bytes: Int
    let limit: Int
    let layout: DiskCacheLayout

    init(_ cache: DiskCache) {
        layout = cache.config.layout
        path = cache.directoryPath
        count = cache.totalCount
        bytes = cache.totalSize
        limit = cache.config.maxDiskSize
    }

    var jsonLine: JSONLine {
        var line = JSONLine()
        line.add("path", path); line.add("count", count); line.add("bytes", bytes); line.add("limit", limit)
        line.add("layout", layout.rawValue)
        return line
    }

    var readable: String {
        let limitText = limit > 0 ? ByteCountText.format(limit) : "unlimited"
        return "\(path): \(count) entries, \(ByteCountText.format(bytes)) (limit \(limitText), \(layout.rawValue) layout)"
    }
}

/// Human-readable byte counts (binary units): `512 B`, `3.4 KiB`, `12.0 MiB`.
enum ByteCountText {
    static func format(_ bytes: Int) -> String {
        let units = ["B", "KiB", "MiB", "GiB", "TiB"]
        var value = Double(bytes)
        var unit = 0
        while value >= 1024, unit < units.count - 1 {
            value /= 1024
            unit += 1
        }
        return unit == 0 ? "\(bytes) B" : String(format: "%.1f", value) + " " + units[unit]
    }
}

extension DiskCacheLayout: ExpressibleByArgument {}
