import Foundation
import Testing
@testable import WebImage
@testable import WebImageCodecs
@testable import WebImageLoading

/// A fresh directory under the system temp dir, and caches rooted in it.
struct DiskCacheSandbox {
    let root: URL

    init() {
        root = FileManager.default.temporaryDirectory
            .appendingPathComponent("webimage-diskcache-\(UUID().uuidString)", isDirectory: true)
        try? FileManager.default.createDirectory(at: root, withIntermediateDirectories: true)
    }

    /// A config rooted here with no background trim and every read recorded, unless changed.
    func config(_ adjust: (inout DiskCacheConfig) -> Void = { _ in }) -> DiskCacheConfig {
        var config = DiskCacheConfig(directory: root)
        config.automaticTrimDelay = nil
        config.accessDateUpdateInterval = 0
        adjust(&config)
        return config
    }

    func cache(_ adjust: (inout DiskCacheConfig) -> Void = { _ in }) -> DiskCache {
        DiskCache(config: config(adjust))
    }

    func remove() {
        try? FileManager.default.removeItem(at: root)
    }
}

extension DiskCache {
    /// Names of the non-hidden files in the cache directory, read straight from disk.
    var entryFileNames: [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: directoryPath)) ?? []).filter { !$0.hasPrefix(".") }.sorted()
    }

    /// The sum of the non-hidden files' sizes, read straight from disk.
    var entryBytesOnDisk: Int {
        entryFileNames.reduce(0) { $0 + (DiskCacheFileSystem.info(atPath: path(forName: $1))?.size ?? 0) }
    }
}

/// Bytes of a given size that differ per `seed`.
func diskCacheBytes(_ count: Int, seed: UInt8 = 1) -> Data {
    Data((0..<count).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ Int(seed)) })
}

/// The self-checking values `webimage disk-cache-worker` writes (a copy of its `WorkerValue`).
enum WorkerValue {
    static func isValid(_ data: Data) -> Bool {
        let bytes = [UInt8](data)
        guard bytes.count >= 16, bytes[0..<4] == [0x57, 0x49, 0x4D, 0x47] else { return false }
        func field(_ at: Int) -> Int { (0..<4).reduce(0) { $0 | Int(bytes[at + $1]) << (8 * $1) } }
        let size = field(12)
        guard bytes.count == 16 + size else { return false }
        return bytes[16...].elementsEqual(payload(writer: field(4), iteration: field(8), size: size))
    }

    static func writer(of data: Data) -> Int? {
        data.count >= 8 ? Int(data[data.startIndex + 4]) : nil
    }

    private static func payload(writer: Int, iteration: Int, size: Int) -> [UInt8] {
        var state = UInt32(truncatingIfNeeded: writer &* 7919 &+ iteration &* 104_729 &+ 1)
        return (0..<size).map { _ in
            state = state &* 1_664_525 &+ 1_013_904_223
            return UInt8(truncatingIfNeeded: state >> 24)
        }
    }
}

/// The `webimage` executable built next to the test bundle, which holds the disk-cache worker.
func webimageExecutable() -> URL? {
    var candidates: [URL] = []
    if let exe = try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe") {
        candidates.append(URL(fileURLWithPath: exe).deletingLastPathComponent().appendingPathComponent("webimage"))
    }
    candidates.append(Bundle.main.bundleURL.deletingLastPathComponent().appendingPathComponent("webimage"))
    candidates.append(Bundle.main.bundleURL.appendingPathComponent("webimage"))
    return candidates.first { FileManager.default.isExecutableFile(atPath: $0.path) }
}

/// Starts the worker on `root`; `arguments` add to `--directory`. Its stdout is a pipe.
func startWorker(root: URL, _ arguments: [String]) throws -> ChildProcess {
    let executable = try #require(webimageExecutable(), "build the webimage executable (swift build) first")
    return try ChildProcess(executable.path, ["disk-cache-worker", "--directory", root.path] + arguments, stdout: .pipe)
}

/// Runs `chattr flag path`; false when the tool is missing or the call is not permitted.
func runChattr(_ flag: String, _ path: String) -> Bool {
    guard FileManager.default.isExecutableFile(atPath: "/usr/bin/chattr"),
          let child = try? ChildProcess("/usr/bin/chattr", [flag, path]) else { return false }
    return child.wait() == .exited(0)
}
