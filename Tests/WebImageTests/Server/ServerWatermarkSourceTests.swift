import Foundation
import Testing
@testable import WebImage
@testable import WebImageServer
@testable import WebImageCodecs

/// Where the watermark comes from: a file, bytes or a URL, read and decoded once; one that cannot
/// be had is a clear error at start-up (or, for a URL in an embedded server, a 502), never a crash.
@Suite("Server: watermark sources")
struct ServerWatermarkSourceTests {
    private static let white = ServerWatermarkTests.whiteSource
    private static let mark = ServerWatermarkTests.blackMark

    /// The message `configuration` is refused with when the server is made.
    private func startupError(_ adjust: (inout ServerConfiguration) -> Void) -> String? {
        do {
            _ = try ImageServer(configuration: loopbackServerConfiguration(adjust))
            return nil
        } catch let error as URLConfigurationError {
            return error.message
        } catch {
            return "\(error)"
        }
    }

    /// A file is read at start-up and drawn.
    @Test func aFileWatermarkIsDrawn() async throws {
        let directory = try PrivateDirectory(prefix: "webimage-wm-")
        defer { directory.remove() }
        let file = directory.url.appendingPathComponent("mark.png")
        try Self.mark.write(to: file)
        try await withTestOrigin { origin in
            origin.setRoute("/white.png", .data(Self.white, contentType: "image/png"))
            try await withImageServer(loopbackServerConfiguration { $0.watermark = .file(file) }) { server in
                // The file is gone: the watermark was read when the server was made.
                try FileManager.default.removeItem(at: file)
                let reply = try await server.get("/insecure/wm:1:nowe/plain/http://127.0.0.1:\(origin.port)/white.png@png")
                #expect(reply.status == 200)
                let bitmap = try server.decode(reply).bitmap
                #expect(bitmap.pixel(x: 5, y: 5) == RGBA(r: 0, g: 0, b: 0))
                #expect(bitmap.pixel(x: 15, y: 5) == RGBA(r: 255, g: 255, b: 255))
            }
        }
    }

    /// A missing, unreadable, undecodable or oversized watermark stops the server being made, with
    /// a message naming the setting.
    @Test func aBadWatermarkIsAStartupError() throws {
        let directory = try PrivateDirectory(prefix: "webimage-wm-")
        defer { directory.remove() }
        let missing = directory.url.appendingPathComponent("none.png")
        let message = try #require(startupError { $0.watermark = .file(missing) })
        #expect(message.contains("--watermark-path") && message.contains("none.png"), "\(message)")
        let text = directory.url.appendingPathComponent("text.png")
        try Data("not an image".utf8).write(to: text)
        let notImage = try #require(startupError { $0.watermark = .file(text) })
        #expect(notImage.contains("not an image this server decodes"), "\(notImage)")
        let folder = try #require(startupError { $0.watermark = .file(directory.url) })
        #expect(folder.contains("not a regular file"), "\(folder)")
        let garbage = try #require(startupError { $0.watermark = .data(Data([0x89, 0x50, 0x4E, 0x47, 1, 2, 3])) })
        #expect(garbage.contains("--watermark-data"), "\(garbage)")
        // A header claiming 5000×5000 is refused before a pixel is decoded.
        let huge = PNGFixtures.png(header: PNGFixtures.ihdr(5000, 5000), zlib: PNGFixtures.zlibStored([0]))
        let tooLarge = try #require(startupError { $0.watermark = .data(huge) })
        #expect(tooLarge.contains("5000×5000") && tooLarge.contains("16777216"), "\(tooLarge)")
        // Within the source limits too.
        let overResolution = try #require(startupError {
            $0.watermark = .data(Self.mark)
            $0.maxSourceResolution = 50
        })
        #expect(overResolution.contains("10×10"), "\(overResolution)")
        let overBytes = try #require(startupError {
            $0.watermark = .data(Self.mark)
            $0.maxSourceBytes = 10
        })
        #expect(overBytes.contains("--max-src-bytes"), "\(overBytes)")
        let opacity = try #require(startupError {
            $0.watermark = .data(Self.mark)
            $0.watermarkOpacity = 1.5
        })
        #expect(opacity.contains("watermarkOpacity"), "\(opacity)")
        #expect(startupError { $0.watermarkOpacity = 0 } != nil)
        #expect(startupError { $0.watermarkOpacity = .nan } != nil)
        #expect(startupError { $0.watermark = .url(URL(string: "ftp://example.com/a.png")!) } != nil)
    }

    /// A URL watermark is fetched once, through the server's loader, for every request after.
    @Test func aURLWatermarkIsFetchedOnce() async throws {
        try await withTestOrigin { origin in
            origin.setRoute("/white.png", .data(Self.white, contentType: "image/png"))
            origin.setRoute("/mark.png", .data(Array(Self.mark), contentType: "image/png"))
            let url = URL(string: "http://127.0.0.1:\(origin.port)/mark.png")!
            try await withImageServer(loopbackServerConfiguration { $0.watermark = .url(url) }) { server in
                try await server.server.pipeline.loadWatermark()
                let source = "plain/http://127.0.0.1:\(origin.port)/white.png@png"
                for position in ["nowe", "soea", "ce"] {
                    let reply = try await server.get("/insecure/wm:1:\(position)/\(source)")
                    #expect(reply.status == 200)
                }
                let reply = try await server.get("/insecure/wm:1:soea/\(source)")
                let bitmap = try server.decode(reply).bitmap
                #expect(bitmap.pixel(x: 95, y: 95) == RGBA(r: 0, g: 0, b: 0))
                #expect(bitmap.pixel(x: 5, y: 5) == RGBA(r: 255, g: 255, b: 255))
                #expect(origin.requestCount("/mark.png") == 1)
            }
        }
    }

    /// A URL watermark that cannot be fetched: `run` would fail before listening; an embedded
    /// server answers the requests that ask for it 502 (and tries again), the others as usual.
    @Test func aMissingURLWatermarkIsReported() async throws {
        try await withTestOrigin { origin in
            origin.setRoute("/white.png", .data(Self.white, contentType: "image/png"))
            origin.setRoute("/mark.png", .status(404))
            let url = URL(string: "http://127.0.0.1:\(origin.port)/mark.png")!
            try await withImageServer(loopbackServerConfiguration { $0.watermark = .url(url) }) { server in
                await #expect(throws: (any Error).self) { try await server.server.pipeline.loadWatermark() }
                let source = "plain/http://127.0.0.1:\(origin.port)/white.png@png"
                let marked = try await server.get("/insecure/wm:1/\(source)")
                #expect(marked.status == 502 && marked.error?.name == "watermark_unavailable", "\(marked.status)")
                #expect(try await server.get("/insecure/\(source)").status == 200)
                origin.setRoute("/mark.png", .data(Array(Self.mark), contentType: "image/png"))
                let later = try await server.get("/insecure/wm:1/\(source)")
                #expect(later.status == 200)
            }
        }
    }
}
