import Foundation
import HTTPTypes
import Testing
@testable import WebImage
@testable import WebImageServer

/// The DocC articles' Swift code: every ```swift block of every `Sources/*/*.docc/*.md` appears,
/// line for line, in this file, where it is compiled and, where it can run offline, run against
/// the loopback origin. An article whose code changes without this file fails the first test.
@Suite("DocC articles")
struct DocCArticleTests {
    static let jpeg = [UInt8](try! CodersManager.shared.encode(
        Image(bitmap: TestBitmaps.gradient(width: 800, height: 600)), as: .jpeg,
        options: EncodeOptions(compressionQuality: 0.8)))

    @Test func everyArticleCodeBlockIsInThisFile() throws {
        let thisFile = URL(fileURLWithPath: #filePath)
        let root = thisFile.deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        let here = try String(contentsOf: thisFile, encoding: .utf8).split(separator: "\n", omittingEmptySubsequences: false)
            .map { $0.trimmingCharacters(in: .whitespaces) }
        var blocks = 0
        let sources = root.appendingPathComponent("Sources")
        for module in try FileManager.default.contentsOfDirectory(atPath: sources.path) {
            let catalog = sources.appendingPathComponent(module).appendingPathComponent("\(module).docc")
            guard let articles = try? FileManager.default.contentsOfDirectory(atPath: catalog.path) else { continue }
            for article in articles where article.hasSuffix(".md") {
                let text = try String(contentsOf: catalog.appendingPathComponent(article), encoding: .utf8)
                for block in Self.swiftBlocks(in: text) {
                    blocks += 1
                    #expect(Self.contains(here, block), "\(module)/\(article): a code block is not in DocCArticleTests.swift:\n\(block.joined(separator: "\n"))")
                }
            }
        }
        #expect(blocks >= 10, "the articles' code blocks were found")
    }

    /// The trimmed, non-empty lines of each ```swift block.
    static func swiftBlocks(in text: String) -> [[String]] {
        var blocks: [[String]] = []
        var current: [String]?
        for line in text.split(separator: "\n", omittingEmptySubsequences: false) {
            let trimmed = line.trimmingCharacters(in: .whitespaces)
            if current == nil, trimmed == "```swift" {
                current = []
            } else if current != nil, trimmed == "```" {
                blocks.append(current!)
                current = nil
            } else if !trimmed.isEmpty {
                current?.append(trimmed)
            }
        }
        return blocks
    }

    /// Whether `block` appears in `lines` as consecutive non-empty lines.
    static func contains(_ lines: [String], _ block: [String]) -> Bool {
        let code = lines.filter { !$0.isEmpty }
        guard !block.isEmpty, code.count >= block.count else { return false }
        return (0...(code.count - block.count)).contains { start in Array(code[start..<(start + block.count)]) == block }
    }

    // MARK: WebImage: Getting started

    @Test func gettingStarted() async throws {
        try await withManager { h in
            h.origin.setRoute("/photo.jpg", .data(Self.jpeg, contentType: "image/jpeg"))
            let (manager, url) = (h.manager, h.origin.url("/photo.jpg"))

            let result = try await manager.image(for: url)
            if let image = result.image {
                print(image.pixelSize, image.format, result.cacheType)
            }
            #expect(result.image?.pixelSize == PixelSize(width: 800, height: 600))

            let context = WebImageContext(thumbnailPixelSize: PixelSize(width: 256, height: 256))
            let thumbnail = try await manager.image(for: url, context: context)
            if let image = thumbnail.image {
                print(image.pixelSize)
            }
            #expect(thumbnail.image?.pixelSize == PixelSize(width: 256, height: 192))

            let operation = manager.loadImage(with: url, options: [.refreshCached]) { result in
                if let error = result.error {
                    print("failed:", error.code)
                } else if let image = result.image {
                    print("loaded", image.pixelSize, "from", result.cacheType)
                }
            }
            operation.cancel()
            #expect(operation.isCancelled)
        }
    }

    // MARK: WebImage: Caching

    @Test func caching() async throws {
        let sandbox = DiskCacheSandbox()
        defer { sandbox.remove() }
        let directory = sandbox.root
        let image = Image(bitmap: TestBitmaps.gradient(width: 40, height: 30))
        let data = Data(Self.jpeg)

        var config = ImageCacheConfig()
        config.maxMemoryCost = 64 << 20
        config.maxDiskSize = 200 << 20
        config.maxDiskAge = 3 * 24 * 3600
        let cache = ImageCache(namespace: "avatars", directory: directory, config: config)
        let avatars = ImageManager(cache: cache, loader: LoadersManager.shared)
        #expect(avatars.imageCache is ImageCache)

        try await cache.storeImage(image, data: data, forKey: "avatar-42")
        let hit = await cache.queryImage(forKey: "avatar-42")
        print(hit.cacheType)
        #expect(hit.cacheType == .memory)

        var packedConfig = ImageCacheConfig()
        packedConfig.disk.layout = .packed
        let thumbnails = ImageCache(namespace: "thumbnails", directory: directory, config: packedConfig)
        try thumbnails.storeImageDataToDisk(data, forKey: "thumb-1")
        #expect(thumbnails.diskImageData(forKey: "thumb-1") == data)
        #expect(FileManager.default.fileExists(atPath: directory.path + "/thumbnails/.packed"))
    }

    // MARK: WebImage: Loading

    @Test func loading() async throws {
        try await withTestOrigin { origin in
            origin.setRoute("/a.jpg", .data(Self.jpeg, contentType: "image/jpeg"))
            let url = origin.url("/a.jpg")
            var config = DownloaderConfig()
            config.maxConcurrentDownloads = 8
            config.downloadTimeout = 10
            config.connectTimeout = 3
            config.retryStrategy = RetryStrategy(maxRetries: 2)
            config.addressPolicy = AddressPolicy()
            let downloader = ImageDownloader(config: config)
            do {
                let loaded = try await downloader.loadImage(url)
                print(loaded.image?.pixelSize as Any)
            } catch {
                print("failed:", error)
            }
            try await downloader.shutdown()
            // The guard refused the loopback origin, as it would any address of the server's own
            // network: nothing reached it.
            #expect(origin.requestCount("/a.jpg") == 0)
        }
    }

    // MARK: WebImageCodecs: Decoding and formats

    @Test func decodingAndFormats() throws {
        let data = Data(Self.jpeg)

        let image = try CodersManager.shared.decode(data, options: .default)
        print(image.pixelSize, image.format, image.frameCount)

        let box = PixelSize(width: 256, height: 256)
        let thumbnail = try CodersManager.shared.decode(data, options: DecodeOptions(thumbnailPixelSize: box))
        #expect(thumbnail.pixelSize == PixelSize(width: 256, height: 192))

        let webp = try CodersManager.shared.encode(thumbnail, as: .webp,
                                                   options: EncodeOptions(compressionQuality: 0.8))
        let jpeg = try CodersManager.shared.encode(thumbnail, as: .jpeg, options: .default)
        #expect(ImageFormat.detect(webp) == .webp && ImageFormat.detect(jpeg) == .jpeg)

        let frames = [ImageFrame(bitmap: TestBitmaps.gradient(width: 8, height: 8), duration: 0.1),
                      ImageFrame(bitmap: TestBitmaps.quadrants(width: 8, height: 8), duration: 0.2)]
        let gif = try CodersManager.shared.encode(Image(frames: frames, loopCount: 0, format: .gif), as: .gif,
                                                  options: .default)
        try animated(try CodersManager.shared.decode(gif, options: .default))
    }

    private func animated(_ image: Image) throws {
        #expect(image.isAnimated)
        if image.isAnimated {
            let second = try image.frame(at: 1)
            print(second.duration)
        }
        #expect(try image.frame(at: 1).duration == 0.2)
    }

    // MARK: WebImageServer: Running the image server

    /// Compiled, never run: it would listen on port 8080 until a signal.
    private func runTheServer(key: String, salt: String) async throws {
        var configuration = ServerConfiguration()
        configuration.host = "0.0.0.0"
        configuration.port = 8080
        configuration.keys = [key]
        configuration.salts = [salt]
        configuration.cacheDirectory = URL(fileURLWithPath: "/var/cache/webimage")
        let server = try ImageServer(configuration: configuration)
        try await server.run(onRunning: { port in print("listening on", port) })
    }

    @Test func insideYourOwnApplication() async throws {
        let photo = Self.jpeg
        try await withTestOrigin { origin in
            origin.setRoute("/a.jpg", .data(photo, contentType: "image/jpeg"))
            let server = try ImageServer(configuration: loopbackServerConfiguration())
            let source = "http://127.0.0.1:\(origin.port)/a.jpg"
            let target = "/images/insecure/rs:fit:300:300/plain/\(source)"
            var head = HTTPRequest(method: .get, scheme: nil, authority: nil,
                                   path: String(target.dropFirst("/images".count)))
            head.headerFields[.accept] = "image/avif,image/webp"
            let answer = await server.response(to: head)
            // answer.status, answer.headers and answer.body (nil for HEAD and 304) make the framework's response.
            await server.shutdown()
            #expect(answer.status == .ok)
            let body = try #require(answer.body)
            #expect(try CodersManager.shared.decode(Data(body.readableBytesView), options: .default).pixelSize
                    == PixelSize(width: 300, height: 225))
        }
    }

    @Test func signingURLs() throws {
        let key = "943b421c9eb07c830af81030552c86009268de4e532ba2ee2eab8247c6da0881"
        let salt = "520f986b998545b4785e0defbc4f3c1203f22de2374a3d53cb7a7fe9fea309c5"
        let signer = try URLSigner(keys: [key], salts: [salt])
        let path = signer.signedPath("/rs:fill:300:200/g:sm/plain/https://example.com/a.jpg@avif")
        let parsed = try ImageURLParser(signer: signer).parse(path)
        #expect(parsed.options.format == .avif)
        #expect(parsed.source == "https://example.com/a.jpg")
    }
}
