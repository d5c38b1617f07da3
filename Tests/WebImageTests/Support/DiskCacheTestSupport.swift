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

/// The executable `name` built beside the test bundle (the `webimage` CLI, the `DiskCacheWorker`
/// test helper), or nil when it is not there.
func builtExecutable(_ name: String) -> URL? {
    var candidates: [URL] = []
    if let exe = try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe") {
        candidates.append(URL(fileURLWithPath: exe).deletingLastPathComponent().appendingPathComponent(name))
    }
    candidates.append(Bundle.main.bundleURL.deletingLastPathComponent().appendingPathComponent(name))
    candidates.append(Bundle.main.bundleURL.appendingPathComponent(name))
    return candidates.first { FileManager.default.isExecutableFile(atPath: $0.path) }
}

/// The `webimage` executable built next to the test bundle.
func webimageExecutable() -> URL? {
    builtExecutable("webimage")
}

/// Starts the `DiskCacheWorker` test helper on `root`; `arguments` add to `--directory`. Its stdout is a pipe.
func startWorker(root: URL, _ arguments: [String]) throws -> ChildProcess {
    let executable = try #require(builtExecutable("DiskCacheWorker"),
                                  "build the DiskCacheWorker test helper (swift build --build-tests) first")
    return try ChildProcess(executable.path, ["--directory", root.path] + arguments, stdout: .pipe)
}

/// Runs `chattr flag path`; false when the tool is missing or the call is not permitted.
func runChattr(_ flag: String, _ path: String) -> Bool {
    guard FileManager.default.isExecutableFile(atPath: "/usr/bin/chattr"),
          let child = try? ChildProcess("/usr/bin/chattr", [flag, path]) else { return false }
    return child.wait() == .exited(0)
}
