import ArgumentParser
import Foundation
import WebImage

/// `webimage disk-cache-worker`: a hidden helper that hammers a disk cache directory, so tests can
/// run a second process against it or kill one mid-write.
///
/// Each value it writes is self-checking (writer, iteration, length, then bytes derived from them);
/// every value it reads back is verified, and a corrupt one exits with status 3.
struct DiskCacheWorkerCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "disk-cache-worker",
        abstract: "Test helper: write and read self-checking values in a disk cache directory.",
        shouldDisplay: false
    )

    @Option(help: "The cache root directory (namespace \"shared\").")
    var directory: String

    @Option(help: "A number identifying this writer in the values it writes.")
    var writer: Int = 0

    @Option(help: "How many distinct keys to cycle through.")
    var keys: Int = 8

    @Option(help: "How many writes to make; 0 writes until killed.")
    var iterations: Int = 1000

    @Option(help: "The payload size of each value in bytes.")
    var valueSize: Int = 4096

    @Option(help: "The cache's size limit in bytes; 0 is unlimited.")
    var maxSize: Int = 0

    func run() throws {
        var config = DiskCacheConfig(directory: URL(fileURLWithPath: directory), namespace: "shared")
        config.maxDiskSize = maxSize
        config.automaticTrimDelay = 0.01
        config.accessDateUpdateInterval = 0
        let cache = DiskCache(config: config)
        let keyCount = max(1, keys)
        // Until killed, alternate two prepared values so the time goes into writing, not generating.
        let prepared = iterations == 0 ? (0..<2).map { WorkerValue.make(writer: writer, iteration: $0, size: valueSize) } : []
        var iteration = 0
        while iterations == 0 || iteration < iterations {
            let key = "https://example.com/image-\(iteration % keyCount).png"
            let value = prepared.isEmpty ? WorkerValue.make(writer: writer, iteration: iteration, size: valueSize)
                                         : prepared[iteration % 2]
            try cache.setData(value, forKey: key)
            if iteration == 0 { say("ready") }
            let probe = "https://example.com/image-\((iteration * 7 + writer) % keyCount).png"
            // Until killed, most of the time should go into writes: verify every 8th iteration only.
            if prepared.isEmpty || iteration % 8 == 0, let data = cache.data(forKey: probe),
               !prepared.contains(data), !WorkerValue.isValid(data) {
                say("corrupt value for \(probe): \(data.count) bytes")
                throw ExitCode(3)
            }
            if iteration % 5 == 0 { try? cache.setExtendedData(Data("writer \(writer)".utf8), forKey: probe) }
            if iteration % 11 == 0 { cache.removeData(forKey: probe) }
            iteration += 1
        }
        say("done \(iteration)")
    }

    /// Writes a line to stdout unbuffered, so the test sees it at once.
    private func say(_ line: String) {
        FileHandle.standardOutput.write(Data((line + "\n").utf8))
    }
}

/// The self-checking value format: "WIMG", writer, iteration, length (UInt32 little-endian), then
/// `length` bytes from a generator seeded by writer and iteration. The tests hold a copy.
enum WorkerValue {
    static func make(writer: Int, iteration: Int, size: Int) -> Data {
        var data = Data("WIMG".utf8)
        for field in [writer, iteration, size] {
            withUnsafeBytes(of: UInt32(truncatingIfNeeded: field).littleEndian) { data.append(contentsOf: $0) }
        }
        data.append(contentsOf: payload(writer: writer, iteration: iteration, size: size))
        return data
    }

    static func isValid(_ data: Data) -> Bool {
        let bytes = [UInt8](data)
        guard bytes.count >= 16, bytes[0..<4] == [0x57, 0x49, 0x4D, 0x47] else { return false }
        func field(_ at: Int) -> Int { (0..<4).reduce(0) { $0 | Int(bytes[at + $1]) << (8 * $1) } }
        let size = field(12)
        guard bytes.count == 16 + size else { return false }
        return bytes[16...].elementsEqual(payload(writer: field(4), iteration: field(8), size: size))
    }

    private static func payload(writer: Int, iteration: Int, size: Int) -> [UInt8] {
        var state = UInt32(truncatingIfNeeded: writer &* 7919 &+ iteration &* 104_729 &+ 1)
        return (0..<size).map { _ in
            state = state &* 1_664_525 &+ 1_013_904_223
            return UInt8(truncatingIfNeeded: state >> 24)
        }
    }
}
