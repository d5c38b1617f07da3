import ArgumentParser
import Foundation
import WebImage

/// `webimage get URL...`: loads images through one ``ImageManager`` (memory, disk cache, network)
/// and reports each one, optionally writing the delivered images to files.
struct GetCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "get",
        abstract: "Load images by URL through the cache and report (or save) them.",
        discussion: """
            With --option refreshCached, a cached image is revalidated and the outcome reported: the \
            cached copy when the origin says it is unchanged, else the new image.
            Exit status: 0 when every URL loaded, 1 when any failed, 2 for usage errors.
            """
    )

    @Argument(help: "http(s), s3:, file: or data: URLs, loaded concurrently.")
    var urls: [String]

    @OptionGroup var load: LoadOptions

    @Option(name: .shortAndLong, help: "Write the image to FILE (only with one URL).")
    var output: String?

    @Option(name: .customLong("out-dir"), help: "Write every image into DIR, named after its URL.")
    var outDir: String?

    @Option(name: .customLong("max-concurrent"), help: "At most this many downloads at once (default 6).")
    var maxConcurrent: Int?

    @Option(help: "The format of written files: png, jpeg, webp, gif, avif, jxl or tiff (default: the file name's, else the source's).")
    var format: OutputFormat?

    @Flag(help: "Print one JSON object per URL, one per line, in input order.")
    var json = false

    mutating func validate() throws {
        _ = try parsedURLs()
        try LoadOptions.validate(maxConcurrent: maxConcurrent)
        if output != nil, urls.count != 1 {
            throw ValidationError("-o/--output takes exactly one URL (got \(urls.count)); use --out-dir for several.")
        }
        if output != nil, outDir != nil {
            throw ValidationError("Use either -o/--output or --out-dir, not both.")
        }
        if let output, format == nil { try ImageOutput.validateExtension(of: output) }
    }

    /// The arguments as URLs; a usage error naming the first one that is not an absolute URL.
    func parsedURLs() throws -> [URL] {
        try URLArguments.parse(urls)
    }

    func run() async throws {
        let urls = try parsedURLs()
        let destinations = try outputPaths(for: urls)
        let stack = try LoadingStack(load, maxConcurrentDownloads: maxConcurrent)
        let manager = ImageManager(cache: stack.cache, loader: stack.loaders)
        // The process ends right after: wait until each image is on disk before reporting it.
        let options = try load.options().union(.waitStoreCache)
        let context = try load.context()
        let bar = ProgressBar(total: urls.count, enabled: !json && isatty(2) == 1)
        var printer = OrderedPrinter(count: urls.count)
        var table = TextTable(["#", "url", "result", "cache", "size", "frames", "format", "bytes", "ms", "output"])
        var failed = false
        let format = self.format

        await withTaskGroup(of: (Int, GetReport).self) { group in
            for (index, url) in urls.enumerated() {
                group.addTask {
                    let report = await Self.fetch(url, manager: manager, options: options, context: context,
                                                  destination: destinations[index], format: format)
                    bar.advance(bytes: report.bytes, failed: !report.ok)
                    return (index, report)
                }
            }
            for await (index, report) in group {
                failed = failed || !report.ok
                for ready in printer.add(report, at: index) {
                    if json { print(ready.jsonLine.text) } else { table.add(ready.tableRow(number: ready.index + 1)) }
                }
            }
        }
        bar.finish()
        if !json { print(table.text) }
        await stack.shutdown()
        if failed { throw ExitCode(1) }
    }

    /// Loads one URL and writes it out when asked.
    private static func fetch(_ url: URL, manager: ImageManager, options: WebImageOptions, context: WebImageContext,
                              destination: OutputTarget?, format: OutputFormat?) async -> GetReport {
        let start = ContinuousClock.now
        var report = GetReport(url: url)
        do {
            let result = try await lastResult(url, manager: manager, options: options, context: context)
            guard let image = result.image else { throw WebImageError(.notCached, "No image was delivered.") }
            report.image = image
            report.cacheType = result.cacheType
            report.bytes = result.byteCount
            if let destination {
                let outputFormat = ImageOutput.format(for: destination.path, requested: format, image: image)
                let path = destination.appendsExtension
                    ? destination.path + "." + outputFormat.fileExtension : destination.path
                // The downloaded bytes are the image itself only when nothing reshaped it.
                let reshaped = options.contains(.decodeFirstFrameOnly) || options.contains(.scaleDownLargeImages)
                try ImageOutput.write(image, originalData: reshaped ? nil : result.data, to: path, as: outputFormat)
                report.output = path
            }
        } catch {
            report.error = error as? WebImageError ?? WebImageError(.badImageData, String(describing: error))
        }
        report.ms = (ContinuousClock.now - start).milliseconds
        return report
    }

    /// The load's last finished result. With `refreshCached` and a cached copy the load goes on
    /// after the cached image: a 304 ends it with that image kept, a changed origin delivers the
    /// new image; the process must see that end before it exits.
    private static func lastResult(_ url: URL, manager: ImageManager, options: WebImageOptions,
                                   context: WebImageContext) async throws -> ImageManagerResult {
        var last: ImageManagerResult?
        for try await event in manager.imageEvents(for: url, options: options, context: context) {
            if case .image(let result) = event { last = result }
        }
        guard let last else { throw WebImageError(.notCached, "The load ended without an image.", url: url) }
        return last
    }

    /// Where each URL's image goes: exactly `-o`, a name under `--out-dir` (the written format's
    /// extension added), or nowhere.
    private func outputPaths(for urls: [URL]) throws -> [OutputTarget?] {
        if let output { return [OutputTarget(path: output, appendsExtension: false)] }
        guard let outDir else { return urls.map { _ in nil } }
        do {
            try FileManager.default.createDirectory(atPath: outDir, withIntermediateDirectories: true)
        } catch {
            throw ValidationError("Cannot create --out-dir '\(outDir)': \(error.localizedDescription)")
        }
        return ImageOutput.baseNames(for: urls).map {
            OutputTarget(path: ImageOutput.path($0, in: outDir), appendsExtension: true)
        }
    }
}
