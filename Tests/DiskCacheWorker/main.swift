import ArgumentParser
import DiskCacheWorkerProtocol
import Foundation
import WebImage

/// A test helper that hammers a disk cache directory, so tests can run a second process against
/// it or kill one mid-write. Built with the tests, never shipped.
///
/// Each value it writes is self-checking (``WorkerValue``); every value it reads back is verified,
/// and a corrupt one exits with ``DiskCacheWorkerProtocol/corruptValueStatus``.
struct DiskCacheWorkerCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "DiskCacheWorker",
        abstract: "Test helper: write and read self-checking values in a disk cache directory."
    )

    @Option(help: "The cache root directory (namespace \"\(DiskCacheWorkerProtocol.namespace)\").")
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

    @Option(help: "The disk layout: files or packed.")
    var layout: String = "files"

    func run() throws {
        var config = DiskCacheConfig(directory: URL(fileURLWithPath: directory),
                                     namespace: DiskCacheWorkerProtocol.namespace)
        config.maxDiskSize = maxSize
        config.automaticTrimDelay = 0.01
        config.accessDateUpdateInterval = 0
        config.layout = DiskCacheLayout(rawValue: layout) ?? .files
        let cache = DiskCache(config: config)
        let keyCount = max(1, keys)
        // Until killed, alternate two prepared values so the time goes into writing, not generating.
        let prepared = iterations == 0 ? (0..<2).map { WorkerValue.make(writer: writer, iteration: $0, size: valueSize) } : []
        var iteration = 0
        while iterations == 0 || iteration < iterations {
            let key = DiskCacheWorkerProtocol.key(iteration % keyCount)
            let value = prepared.isEmpty ? WorkerValue.make(writer: writer, iteration: iteration, size: valueSize)
                                         : prepared[iteration % 2]
            try cache.setData(value, forKey: key)
            if iteration == 0 { say(DiskCacheWorkerProtocol.readyLine) }
            let probe = DiskCacheWorkerProtocol.key((iteration * 7 + writer) % keyCount)
            // Until killed, most of the time should go into writes: verify every 8th iteration only.
            if prepared.isEmpty || iteration % 8 == 0, let data = cache.data(forKey: probe),
               !prepared.contains(data), !WorkerValue.isValid(data) {
                say("corrupt value for \(probe): \(data.count) bytes")
                throw ExitCode(DiskCacheWorkerProtocol.corruptValueStatus)
            }
            if iteration % 5 == 0 { try? cache.setExtendedData(Data("writer \(writer)".utf8), forKey: probe) }
            if iteration % 11 == 0 { cache.removeData(forKey: probe) }
            iteration += 1
        }
        say(DiskCacheWorkerProtocol.doneLine(iterations: iteration))
    }

    /// Writes a line to stdout unbuffered, so the test sees it at once.
    private func say(_ line: String) {
        FileHandle.standardOutput.write(Data((line + "\n").utf8))
    }
}

DiskCacheWorkerCommand.main()
