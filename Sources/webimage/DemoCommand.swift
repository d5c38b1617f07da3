import ArgumentParser
import Foundation
import WebImage

/// `webimage demo`: the offline end-to-end demo. Generates a gallery with the library's encoders
/// (and AVIF, JPEG XL, HEIC and SVG files), serves it from a loopback origin in this process,
/// loads it cold, from disk, from memory, as thumbnails and transformed, plays an animation
/// through the player, asks `webimage serve` (started on a loopback port) for a few results,
/// prints tables and writes a contact sheet with every tile labelled.
struct DemoCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "demo",
        abstract: "Run the offline demo: generate, serve, load and cache a gallery; write a contact sheet."
    )

    @Option(help: "Where to write the contact sheet (default: a new temporary directory).")
    var out: String?

    @Option(help: "How many images the gallery holds.")
    var count = 60

    func validate() throws {
        guard (1...2000).contains(count) else {
            throw ValidationError("Bad --count '\(count)': expected 1 to 2000 images.")
        }
    }

    func run() async throws {
        let outDir = try makeOutputDirectory()
        // A fresh cache per run under the output directory: reproducible, never the user's cache.
        let cacheDir = outDir.appendingPathComponent("cache-\(UUID().uuidString)", isDirectory: true)
        defer { try? FileManager.default.removeItem(at: cacheDir) }

        let generationStart = ContinuousClock.now
        let items = try DemoGallery.make(count: count)
        let galleryBytes = items.reduce(0) { $0 + $1.data.count }
        print("Generated \(items.count) images (\(ByteCountText.format(galleryBytes))) in "
              + String(format: "%.0f ms", (ContinuousClock.now - generationStart).milliseconds) + ".")

        let formatItems = try DemoFormats.make()
        let origin = try await DemoOrigin.start(serving: items + formatItems)
        let downloader = ImageDownloader()
        let loaders = LoadersManager(loaders: [downloader])
        let urls = items.map(origin.url(for:))
        print("Serving them from \(origin.baseURL); cache in \(cacheDir.path).")

        let coldCache = ImageCache(directory: cacheDir), warmCache = ImageCache(directory: cacheDir)
        // Before the directory is removed, let both caches finish their queued disk writes (the
        // last passes store without waiting), or a late write would create the directory again.
        defer { _ = (coldCache.totalDiskCount, warmCache.totalDiskCount) }
        let cold = ImageManager(cache: coldCache, loader: loaders)
        var passes = [await DemoPass.run("cold (network)", urls: urls, manager: cold, origin: origin,
                                         options: .waitStoreCache, bar: ProgressBar(total: urls.count, label: "cold"))]
        // A new manager and cache over the same directory: an empty memory cache, a full disk.
        let warm = ImageManager(cache: warmCache, loader: loaders)
        passes.append(await DemoPass.run("warm disk", urls: urls, manager: warm, origin: origin))
        passes.append(await DemoPass.run("warm memory", urls: urls, manager: warm, origin: origin))
        var thumbnail = WebImageContext()
        thumbnail.thumbnailPixelSize = PixelSize(width: 128, height: 128)
        passes.append(await DemoPass.run("thumbnail 128", urls: urls, manager: warm, origin: origin, context: thumbnail))
        var transformed = WebImageContext()
        transformed.imageTransformer = PipelineTransformer([
            ResizingTransformer(size: PointSize(width: 160, height: 120), scaleMode: .aspectFill),
            RoundCornerTransformer(cornerRadius: 14, borderWidth: 2, borderColor: .white),
        ])
        passes.append(await DemoPass.run("transform", urls: urls, manager: warm, origin: origin,
                                         options: .transformAnimatedImage, context: transformed))
        let formats = await DemoPass.run("formats", urls: formatItems.map(origin.url(for:)), manager: cold, origin: origin)
        passes.append(formats)

        var table = TextTable(["pass", "images", "images/s", "downloaded", "cache hits", "ms"])
        for pass in passes { table.add(pass.row) }
        print(table.text)
        for failure in passes.flatMap(\.failures).prefix(5) { print("failed: \(failure)") }

        let gallery = DemoSheetRows(items: items, full: passes[2].images, transformed: passes[4].images)
        var played: [ContactSheet.Tile] = []
        if let animation = gallery.animation { played = await DemoPlayer.frames(of: animation, limit: 4) }
        let served = try await DemoServe.run(source: origin.url(for: items[0]).absoluteString,
                                             cacheDirectory: cacheDir.appendingPathComponent("serve", isDirectory: true))
        var serveTable = TextTable(["serve", "status", "type", "size"])
        for result in served { serveTable.add(result.row) }
        print(serveTable.text)

        try? await downloader.shutdown()
        await origin.stop()

        let rows: [(String, [ContactSheet.Tile])] = [("formats", gallery.formatTiles + DemoSheetRows.tiles(formatItems, formats.images)),
                    ("player", played), ("serve", served.map(DemoSheetRows.tile)), ("gallery", gallery.galleryTiles)]
        for (name, tiles) in rows where !tiles.isEmpty {
            print("\(name): " + tiles.map { ContactSheet.fittedLabel($0.label, width: 128) }.joined(separator: " | "))
        }
        let sheet = ContactSheet.make(rows.map { $0.1 })
        let sheetURL = outDir.appendingPathComponent("contact-sheet.png")
        try CodersManager.shared.encode(Image(bitmap: sheet), as: .png, options: .default).write(to: sheetURL)
        print("Contact sheet: \(sheetURL.path) (\(sheet.width)x\(sheet.height))")
        let serveFailed = served.contains { $0.image == nil && DemoServe.isRequired($0.name) }
        if passes.contains(where: { !$0.failures.isEmpty }) || serveFailed { throw ExitCode(1) }
    }

    private func makeOutputDirectory() throws -> URL {
        let directory = out.map { URL(fileURLWithPath: $0, isDirectory: true) }
            ?? FileManager.default.temporaryDirectory.appendingPathComponent("webimage-demo-\(UUID().uuidString.prefix(8))")
        do {
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        } catch {
            throw ValidationError("Cannot create --out '\(directory.path)': \(error.localizedDescription)")
        }
        return directory
    }
}
