import Foundation
import Glibc
import Testing
@testable import WebImage
@testable import WebImageCodecs
@testable import WebImageLoading

/// `local:///path` under a root: real files, real symbolic links, a FIFO; nothing outside the root
/// is read in any spelling of the path.
@Suite("Loader: local:// sources under a root")
struct LocalSourceLoaderTests {
    let coder = TestImageCoder()

    /// A root with `photos/a.img`, a sibling directory outside it holding `secret.img`, and the
    /// files' bytes.
    struct Tree {
        let base: URL
        let root: URL
        let outside: URL
        let image: [UInt8]

        init() throws {
            base = FileManager.default.temporaryDirectory.appendingPathComponent("local-source-\(UUID().uuidString)")
            root = base.appendingPathComponent("root")
            outside = base.appendingPathComponent("outside")
            image = TestImageCoder.encode(width: 5, height: 4)
            try FileManager.default.createDirectory(at: root.appendingPathComponent("photos"), withIntermediateDirectories: true)
            try FileManager.default.createDirectory(at: outside, withIntermediateDirectories: true)
            try Data(image).write(to: root.appendingPathComponent("photos/a.img"))
            try Data(image).write(to: outside.appendingPathComponent("secret.img"))
        }

        func remove() { try? FileManager.default.removeItem(at: base) }

        func link(_ name: String, to target: String) throws {
            try FileManager.default.createSymbolicLink(atPath: root.appendingPathComponent(name).path,
                                                       withDestinationPath: target)
        }
    }

    private func load(_ source: String, _ loader: LocalSourceLoader,
                      context: WebImageContext? = nil) async -> Result<ImageLoadResult, WebImageError> {
        guard let url = URL(string: source) else { return .failure(WebImageError(.invalidURL, "not a URL")) }
        do {
            return .success(try await loader.loadImage(url, context: context ?? .testing(coder)))
        } catch let error as WebImageError {
            return .failure(error)
        } catch {
            return .failure(WebImageError(.badImageData, "\(error)"))
        }
    }

    private func code(_ result: Result<ImageLoadResult, WebImageError>) -> (WebImageError.Code?, Int?) {
        guard case .failure(let error) = result else { return (nil, nil) }
        return (error.code, error.httpStatus)
    }

    @Test func aFileUnderTheRootLoadsWithProgress() async throws {
        let tree = try Tree()
        defer { tree.remove() }
        let loader = try LocalSourceLoader(root: tree.root)
        let recorder = LoadRecorder()
        let result = try await loader.loadImage(URL(string: "local:///photos/a.img")!, context: .testing(coder),
                                                progress: recorder.progressHandler)
        #expect(result.image?.pixelSize == PixelSize(width: 5, height: 4))
        #expect(result.data == Data(tree.image))
        #expect(recorder.progress.map(\.0) == [0, Int64(tree.image.count)])
        // Empty and `.` segments are skipped; an escaped letter is read as the letter.
        for spelling in ["local:////photos//./a.img", "local:///photos/%61.img"] {
            let again = await load(spelling, loader)
            #expect((try? again.get())?.image != nil, "\(spelling)")
        }
    }

    /// Every spelling of `..` is refused before the file system is asked, including the ones that
    /// would stay under the root: a path with a `..` segment is refused as a whole.
    @Test(arguments: ["local:///../outside/secret.img", "local:///photos/../../outside/secret.img",
                      "local:///%2e%2e/outside/secret.img", "local:///%2E%2E%2Foutside%2Fsecret.img",
                      "local:///photos%2F..%2F..%2Foutside%2Fsecret.img", "local:///photos/../photos/a.img"])
    func dotDotIsRefusedInEverySpelling(source: String) async throws {
        let tree = try Tree()
        defer { tree.remove() }
        let result = await load(source, try LocalSourceLoader(root: tree.root))
        #expect(code(result).0 == .sourceNotAllowed, "\(source): \(result)")
    }

    /// An absolute path is a path under the root: the file it names elsewhere is not read.
    @Test func anAbsolutePathStaysUnderTheRoot() async throws {
        let tree = try Tree()
        defer { tree.remove() }
        let loader = try LocalSourceLoader(root: tree.root)
        let secret = tree.outside.appendingPathComponent("secret.img").path
        for source in ["local://" + secret, "local:///" + secret, "local:///%2F" + secret.dropFirst()] {
            let result = await load(source, loader)
            #expect(code(result) == (.invalidDownloadStatusCode, 404), "\(source): \(result)")
        }
    }

    @Test func aSymbolicLinkOutOfTheRootIsRefusedOneInsideIsFollowed() async throws {
        let tree = try Tree()
        defer { tree.remove() }
        try tree.link("escape.img", to: tree.outside.appendingPathComponent("secret.img").path)
        try tree.link("relative-escape.img", to: "../outside/secret.img")
        try tree.link("outdir", to: tree.outside.path)
        try tree.link("inside.img", to: "photos/a.img")
        let loader = try LocalSourceLoader(root: tree.root)
        for source in ["local:///escape.img", "local:///relative-escape.img", "local:///outdir/secret.img"] {
            let result = await load(source, loader)
            #expect(code(result).0 == .sourceNotAllowed, "\(source): \(result)")
        }
        let inside = await load("local:///inside.img", loader)
        #expect((try? inside.get())?.image?.pixelSize == PixelSize(width: 5, height: 4))
    }

    /// A root that is itself reached through a link is resolved once: files under its real path load.
    @Test func aRootBehindALinkIsResolved() async throws {
        let tree = try Tree()
        defer { tree.remove() }
        let alias = tree.base.appendingPathComponent("alias")
        try FileManager.default.createSymbolicLink(atPath: alias.path, withDestinationPath: tree.root.path)
        let loader = try LocalSourceLoader(root: alias)
        #expect(loader.root.path == tree.root.resolvingSymlinksInPath().path)
        let result = await load("local:///photos/a.img", loader)
        #expect((try? result.get())?.image != nil)
    }

    /// What is not a regular file is not found, and a FIFO is not opened for a blocking read (the
    /// test would hang).
    @Test func directoriesFIFOsAndMissingFilesAreNotFound() async throws {
        let tree = try Tree()
        defer { tree.remove() }
        #expect(mkfifo(tree.root.appendingPathComponent("pipe.img").path, 0o644) == 0)
        let loader = try LocalSourceLoader(root: tree.root)
        for source in ["local:///photos", "local:///pipe.img", "local:///photos/missing.img", "local:///photos/a.img/x"] {
            let result = await load(source, loader)
            #expect(code(result) == (.invalidDownloadStatusCode, 404), "\(source): \(result)")
        }
    }

    @Test func theSizeLimitIsCheckedBeforeReadingAndTheContextTightensIt() async throws {
        let tree = try Tree()
        defer { tree.remove() }
        let size = tree.image.count
        let tight = try LocalSourceLoader(root: tree.root, maximumFileSize: size - 1)
        #expect(code(await load("local:///photos/a.img", tight)).0 == .responseTooLarge)
        let exact = try LocalSourceLoader(root: tree.root, maximumFileSize: size)
        #expect((try? (await load("local:///photos/a.img", exact)).get())?.image != nil)
        var context = WebImageContext.testing(coder)
        context.maximumResponseSize = size - 1
        #expect(code(await load("local:///photos/a.img", exact, context: context)).0 == .responseTooLarge)
    }

    @Test func malformedLocalURLsAreInvalid() async throws {
        let tree = try Tree()
        defer { tree.remove() }
        let loader = try LocalSourceLoader(root: tree.root)
        for source in ["local://host/photos/a.img", "local:///", "local:///a%00b.img"] {
            #expect(code(await load(source, loader)).0 == .invalidURL, "\(source)")
        }
        #expect(throws: WebImageError.self) { try LocalSourceLoader(root: tree.root.appendingPathComponent("photos/a.img")) }
        #expect(throws: WebImageError.self) { try LocalSourceLoader(root: tree.base.appendingPathComponent("none")) }
    }

    /// The loader serves any image manager, beside the built-in loaders.
    @Test func anImageManagerLoadsLocalURLsThroughIt() async throws {
        let tree = try Tree()
        defer { tree.remove() }
        let loaders = LoadersManager(loaders: [FileImageLoader(), try LocalSourceLoader(root: tree.root)])
        let manager = ImageManager(cache: ImageCache(namespace: "local-\(UUID().uuidString)",
                                                     directory: tree.base.appendingPathComponent("cache")),
                                   loader: loaders)
        var context = WebImageContext.testing(coder)
        context.storeCacheType = ImageCacheType.none
        let result = try await manager.image(for: URL(string: "local:///photos/a.img")!, context: context)
        #expect(result.image?.pixelSize == PixelSize(width: 5, height: 4))
        await #expect(throws: WebImageError.self) {
            try await manager.image(for: URL(string: "local:///../outside/secret.img")!, context: context)
        }
    }
}
