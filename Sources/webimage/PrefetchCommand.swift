import ArgumentParser
import Foundation
import WebImage

/// `webimage prefetch URL... | --file FILE`: warms the disk cache with images, a few at a time
/// at low priority, and prints a summary.
struct PrefetchCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "prefetch",
        abstract: "Load images into the cache without keeping them; print a summary.",
        discussion: "Exit status: 0 when every URL was prefetched, 1 when any was skipped, 2 for usage errors."
    )

    @Argument(help: "URLs to prefetch.")
    var urls: [String] = []

    @Option(help: "Read URLs from FILE, one per line (blank lines and lines starting with # are ignored).")
    var file: String?

    @OptionGroup var load: LoadOptions

    @Option(name: .customLong("max-concurrent"),
            help: "Prefetch at most this many URLs at once (default \(Prefetch.defaultConcurrency), SDWebImage's maxConcurrentPrefetchCount).")
    var maxConcurrent: Int?

    @Flag(help: "Print the summary as one JSON object.")
    var json = false

    mutating func validate() throws {
        if urls.isEmpty, file == nil { throw ValidationError("Give URLs or --file FILE.") }
        _ = try allURLs()
        try LoadOptions.validate(maxConcurrent: maxConcurrent)
    }

    /// The URLs from the arguments, then from `--file`; a usage error names a bad one.
    func allURLs() throws -> [URL] {
        var texts = urls
        if let file {
            guard let contents = try? String(contentsOfFile: file, encoding: .utf8) else {
                throw ValidationError("Cannot read --file '\(file)'.")
            }
            texts += contents.split(whereSeparator: \.isNewline)
                .map { $0.trimmingCharacters(in: .whitespaces) }
                .filter { !$0.isEmpty && !$0.hasPrefix("#") }
        }
        return try URLArguments.parse(texts)
    }

    func run() async throws {
        let urls = try allURLs()
        let concurrency = maxConcurrent ?? Prefetch.defaultConcurrency
        // The downloader gets the same cap, so a value above its default of 6 still takes effect.
        let stack = try LoadingStack(load, maxConcurrentDownloads: maxConcurrent)
        let summary = try await Prefetch.run(urls, stack: stack, options: load.options(), context: load.context(),
                                             concurrency: concurrency,
                                             bar: ProgressBar(total: urls.count, label: "prefetch"))
        await stack.shutdown()
        if json {
            var line = JSONLine()
            line.add("total", summary.total); line.add("finished", summary.finished)
            line.add("skipped", summary.skipped); line.add("ms", summary.ms)
            print(line.text)
        } else {
            print("Prefetched \(summary.finished - summary.skipped) of \(summary.total) (\(summary.skipped) skipped) in \(String(format: "%.0f", summary.ms)) ms.")
        }
        if summary.skipped > 0 { throw ExitCode(1) }
    }
}

/// The outcome of a prefetch: SDWebImage's counts (`finished` includes the `skipped` failures).
struct PrefetchSummary: Sendable {
    var total: Int
    var finished: Int
    var skipped: Int
    var ms: Double
}
