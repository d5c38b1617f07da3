import ArgumentParser
import Dispatch
import Foundation
import Synchronization
import WebImage

/// `webimage decode-bench DIR`: the decode loop of the shared harness's C decode limit, through the
/// library, with the same JSON line shape so the two can be compared in one run.
struct DecodeBenchCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "decode-bench",
        abstract: "Decode every .jpg/.jpeg/.png/.gif/.webp/.avif/.heic/.heif/.jxl/.tif/.tiff/.bmp/.ico/.cur in DIR (read into memory first) K times and print one JSON line."
    )

    @Argument(help: "Directory of images.")
    var directory: String

    @Option(help: "Passes over the files (default: about 200 MB of compressed data, at most 50).")
    var reps: Int?

    @Option(help: "Decoding threads, each taking every T-th image.")
    var threads = 1

    @Option(help: "Decode to fit NxN instead of full size.")
    var thumbnail: Int?

    @Option(help: "The filter a thumbnail is resized with: nearest, linear, cubic, lanczos2, lanczos3 (default) or area.")
    var filter = ResamplingFilter.default.rawValue

    @Option(help: "Store the files in a disk cache in this directory and read each one back from it before decoding (a disk-cache hit).")
    var diskCache: String?

    func validate() throws {
        guard threads >= 1 else { throw ValidationError("--threads must be at least 1.") }
        if let reps, reps < 1 { throw ValidationError("--reps must be at least 1.") }
        if let thumbnail, thumbnail < 1 { throw ValidationError("--thumbnail must be at least 1.") }
        guard ResamplingFilter(rawValue: filter) != nil else {
            throw ValidationError("--filter takes one of \(ResamplingFilter.allCases.map(\.rawValue).joined(separator: ", ")), got '\(filter)'.")
        }
    }

    func run() throws {
        let names = try FileManager.default.contentsOfDirectory(atPath: directory)
            .filter { ["jpg", "jpeg", "png", "gif", "webp", "avif", "heic", "heif", "jxl", "tif", "tiff", "bmp", "ico", "cur", "svg"].contains(($0 as NSString).pathExtension.lowercased()) }
            .sorted()
        guard !names.isEmpty else { throw ValidationError("No images in \(directory).") }
        let files = try names.map { try Data(contentsOf: URL(fileURLWithPath: directory).appendingPathComponent($0)) }
        let bytes = files.reduce(0) { $0 + $1.count }
        let passes = reps ?? min(50, max(1, (200_000_000 + bytes) / max(bytes, 1)))
        var options = DecodeOptions.default
        if let thumbnail { options.thumbnailPixelSize = PixelSize(width: thumbnail, height: thumbnail) }
        options.resamplingFilter = ResamplingFilter(rawValue: filter) ?? .default

        // Untimed: source sizes (for megapixels), then one pass of the timed decode itself, as
        // the C loops' warm-up is: a thumbnail takes a path the full-size decode does not, and
        // glibc serves an allocation above its mmap threshold from the heap only after the
        // first free of that size, so the second decode of a file is the first that finds the
        // memory a decoding library allocates (gdk-pixbuf's pixbuf, libheif's planes) already
        // mapped. (The C loops keep their freed memory from the start: mallopt.)
        let megapixels = try files.reduce(0.0) { total, data in
            let image = try CodersManager.shared.decode(data, options: .default)
            return total + Double(image.width * image.height) / 1e6
        }
        let coder = CodersManager.shared
        for data in files { _ = try coder.decode(data, options: options) }
        let disk = try diskCache.map { try Self.filledDiskCache(at: $0, with: files) }
        let work = files.count * passes
        let failures = Atomic<Int>(0)
        let decodeOptions = options
        let start = ContinuousClock.now
        DispatchQueue.concurrentPerform(iterations: threads) { thread in
            var i = thread
            while i < work {
                do {
                    let data = disk.map { $0.data(forKey: "file-\(i % files.count)") } ?? files[i % files.count]
                    _ = try coder.decode(data ?? Data(), options: decodeOptions)
                } catch { failures.add(1, ordering: .relaxed) }
                i += threads
            }
        }
        let seconds = (ContinuousClock.now - start).milliseconds / 1000
        let failed = failures.load(ordering: .relaxed)
        guard failed == 0 else { throw ValidationError("\(failed) decode failures") }
        var line = JSONLine()
        line.add("subject", disk == nil ? "webimage-decode" : "webimage-disk-hit")
        line.add("set", URL(fileURLWithPath: directory).lastPathComponent)
        line.add("images", work)
        line.add("seconds", seconds)
        line.add("images_per_s", Double(work) / seconds)
        line.add("megapixels_per_s", megapixels * Double(passes) / seconds)
        line.add("files", files.count)
        line.add("reps", passes)
        line.add("threads", threads)
        line.add("thumbnail", thumbnail ?? 0)
        line.add("filter", filter)
        line.add("ms_per_image", seconds * 1000 / Double(work))
        print(line.text)
    }

    /// A disk cache under `path` holding every file, keyed `file-<index>`.
    static func filledDiskCache(at path: String, with files: [Data]) throws -> DiskCache {
        var config = DiskCacheConfig(directory: URL(fileURLWithPath: path), namespace: "decode-bench")
        config.maxDiskSize = 8 << 30
        let disk = DiskCache(config: config)
        disk.removeAll()
        for (index, data) in files.enumerated() { try disk.setData(data, forKey: "file-\(index)") }
        return disk
    }
}
