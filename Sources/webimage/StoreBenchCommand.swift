import ArgumentParser
import Foundation
import WebImage

/// `webimage store-bench`: the packed disk layout at scale — fill a store with many small entries,
/// then time opening it (loading its index), what the index holds in memory, and one trim pass to
/// half its size. Prints one JSON line.
struct StoreBenchCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "store-bench",
        abstract: "Fill a packed disk cache, then time its open and a trim, and measure its index's memory; print one JSON line."
    )

    @Option(help: "Entries to store.")
    var entries = 1_000_000
    @Option(help: "Bytes per entry.")
    var entrySize = 8192
    @Option(help: "Directory for the store (default: a new temporary one, removed afterwards).")
    var directory: String?

    func validate() throws {
        guard (1...50_000_000).contains(entries) else { throw ValidationError("--entries takes 1–50000000.") }
        guard (1...(1 << 20)).contains(entrySize) else { throw ValidationError("--entry-size takes 1–1048576 bytes.") }
    }

    func run() throws {
        let root = directory.map { URL(fileURLWithPath: $0, isDirectory: true) }
            ?? FileManager.default.temporaryDirectory.appendingPathComponent("webimage-store-bench-\(UUID().uuidString)")
        defer { if directory == nil { try? FileManager.default.removeItem(at: root) } }
        var config = DiskCacheConfig(directory: root, namespace: "store-bench")
        config.layout = .packed
        config.maxDiskSize = 0
        config.automaticTrimDelay = nil
        config.maxDiskAge = -1

        var value = Data((0..<entrySize).map { UInt8(truncatingIfNeeded: $0 &* 37) })
        let fillStart = Date()
        do {
            let cache = DiskCache(config: config)
            for i in 0..<entries {
                value.withUnsafeMutableBytes { $0.storeBytes(of: UInt32(truncatingIfNeeded: i), toByteOffset: 0, as: UInt32.self) }
                try cache.setData(value, forKey: Self.key(i))
            }
        }  // closing the store saves its index
        let fillSeconds = Date().timeIntervalSince(fillStart)

        let rssBefore = Self.residentMegabytes()
        let openStart = Date()
        var limited = config
        limited.maxDiskSize = entries * entrySize
        let cache = DiskCache(config: limited)
        let count = cache.totalCount
        let openSeconds = Date().timeIntervalSince(openStart)
        let indexMegabytes = Self.residentMegabytes() - rssBefore
        guard count == entries, cache.data(forKey: Self.key(entries - 1)) != nil else {
            throw ValidationError("The reopened store holds \(count) of \(entries) entries.")
        }
        let sizeBefore = cache.totalSize
        // Entries rank by when they were written: the older half goes.
        let trimStart = Date()
        cache.removeExpiredData()
        let trimSeconds = Date().timeIntervalSince(trimStart)
        // The compacted files are renamed away at once and deleted in the background.
        let packedDirectory = root.appendingPathComponent("store-bench/.packed").path
        while (try? FileManager.default.contentsOfDirectory(atPath: packedDirectory))?.contains(where: { $0.hasSuffix(".deleted") }) == true {
            usleep(10_000)
        }
        let deletionSeconds = Date().timeIntervalSince(trimStart)

        var line = JSONLine()
        line.add("bench", "packed-store"); line.add("entries", entries); line.add("entry_size", entrySize)
        line.add("fill_seconds", fillSeconds); line.add("fill_entries_per_s", Double(entries) / fillSeconds)
        line.add("open_seconds", openSeconds); line.add("index_rss_mb", indexMegabytes)
        line.add("trim_seconds", trimSeconds); line.add("trim_deleted_seconds", deletionSeconds); line.add("bytes_before_trim", sizeBefore)
        line.add("bytes_after_trim", cache.totalSize); line.add("entries_after_trim", cache.totalCount)
        line.add("limit", limited.maxDiskSize); line.add("peak_rss_mb", BenchPipeline.peakRSSMegabytes())
        print(line.text)
    }

    static func key(_ i: Int) -> String { "https://images.example.com/photos/\(i).jpg" }

    /// The process's resident memory now, from /proc/self/statm.
    static func residentMegabytes() -> Double {
        guard let text = try? String(contentsOfFile: "/proc/self/statm", encoding: .utf8),
              let pages = Double(text.split(separator: " ").dropFirst().first ?? "") else { return 0 }
        return pages * Double(sysconf(Int32(_SC_PAGESIZE))) / 1_048_576
    }
}
