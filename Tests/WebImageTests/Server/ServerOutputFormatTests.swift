import Foundation
import Testing
@testable import WebImage
@testable import WebImageServer
@testable import WebImageCodecs

/// `@bmp`, `@ico` and `@heic` results over HTTP: each answered in the format asked for (never a
/// JPEG in its place), or refused with 422 when the server has no encoder for it.
@Suite("Server: BMP, ICO and HEIC results")
struct ServerOutputFormatTests {
    /// 80×60 quadrants (red, green / blue, yellow), with a transparent 8×8 top-left corner.
    static let picture: Bitmap = {
        var pixels = TestBitmaps.quadrants(width: 80, height: 60).pixels
        for y in 0..<8 { for x in 0..<8 { pixels[(y * 80 + x) * 4 + 3] = 0 } }
        return Bitmap(width: 80, height: 60, pixels: pixels)
    }()
    let png = Array(try! CodersManager().encode(Image(bitmap: ServerOutputFormatTests.picture), as: .png, options: .default))

    private func withPicture(_ body: @escaping @Sendable (ServerHarness, TestOrigin, _ source: String) async throws -> Void) async throws {
        try await withTestOrigin { origin in
            origin.setRoute("/p.png", .data(png, contentType: "image/png"))
            try await withImageServer(loopbackServerConfiguration()) { server in
                try await body(server, origin, "plain/http://127.0.0.1:\(origin.port)/p.png")
            }
        }
    }

    @Test func bmpIsWrittenWithItsAlpha() async throws {
        try await withPicture { server, _, source in
            for path in ["/insecure/\(source)@bmp", "/insecure/f:bmp/\(source)", "/insecure/format:bmp/\(source)"] {
                let reply = try await server.get(path)
                #expect(reply.status == 200, "\(path)")
                #expect(reply.header("Content-Type") == "image/bmp")
                #expect(reply.body.prefix(2) == Data("BM".utf8))
                let image = try server.decode(reply)
                #expect(image.format == .bmp)
                #expect(image.bitmap.pixel(x: 2, y: 2).a == 0)
                #expect(image.bitmap.pixel(x: 20, y: 20) == TestBitmaps.red)
                #expect(image.bitmap.pixel(x: 79, y: 59) == TestBitmaps.yellow)
            }
            // Opaque (the bottom-right quarter): 24-bit.
            let opaque = try await server.get("/insecure/c:40:30:soea/\(source)@bmp")
            #expect(opaque.body[28] == 24)
            let quarter = try server.decode(opaque)
            #expect(quarter.pixelSize == PixelSize(width: 40, height: 30))
            #expect(quarter.bitmap.pixel(x: 2, y: 2) == TestBitmaps.yellow && quarter.bitmap.pixel(x: 39, y: 29) == TestBitmaps.yellow)
        }
    }

    /// An icon is at most 256×256; a larger result is shrunk to fit, as imgproxy does.
    @Test func icoIsAPNGIconOfAtMost256() async throws {
        try await withPicture { server, _, source in
            let reply = try await server.get("/insecure/\(source)@ico")
            #expect(reply.status == 200)
            #expect(reply.header("Content-Type") == "image/x-icon")
            #expect(Array(reply.body.prefix(4)) == [0, 0, 1, 0])
            let image = try server.decode(reply)
            #expect(image.format == .ico && image.pixelSize == PixelSize(width: 80, height: 60))
            #expect(image.bitmap.pixel(x: 2, y: 2).a == 0)
            #expect(image.bitmap.pixel(x: 20, y: 20) == TestBitmaps.red)
            let large = try await server.get("/insecure/rs:fit:640:480:1/\(source)@ico")
            #expect(large.status == 200)
            let shrunk = try server.decode(large)
            #expect(shrunk.format == .ico && shrunk.pixelSize == PixelSize(width: 256, height: 192))
            #expect(TestBitmaps.isUprightQuadrants(shrunk.bitmap))
        }
    }

    /// HEIC is decoded but never written (libheif's HEVC encoder, x265, is GPL): 422 naming it.
    @Test func heicIsAnsweredUnsupported() async throws {
        try await withPicture { server, _, source in
            let reply = try await server.get("/insecure/rs:fit:40:30/\(source)@heic")
            #expect(reply.status == 422)
            #expect(reply.error?.name == "unsupported_format")
            #expect(reply.error?.message.contains("heic") == true)
        }
    }

    /// Without an encoder for the format asked for, the answer is 422 naming it, before the
    /// source is fetched.
    @Test func aFormatWithoutAnEncoderIs422() async throws {
        try await withPicture { server, origin, source in
            server.server.pipeline.coders.removeCoder(HEIFCoder())
            server.server.pipeline.coders.removeCoder(BMPCoder())
            for (path, format) in [("/insecure/\(source)@heic", "heic"), ("/insecure/f:bmp/\(source)", "bmp")] {
                let reply = try await server.get(path)
                #expect(reply.status == 422, "\(path)")
                #expect(reply.error?.name == "unsupported_format")
                #expect(reply.error?.message.contains(format) == true)
                #expect(reply.header("Content-Type") == "application/json")
            }
            #expect(origin.requestCount("/p.png") == 0)
        }
    }
}
