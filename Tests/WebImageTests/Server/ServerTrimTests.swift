import Foundation
import Testing
@testable import WebImage
@testable import WebImageServer
@testable import WebImageCodecs

/// `trim` end to end: real HTTP to the server, which fetches PNGs drawn by ``TrimCanvas`` from the
/// loopback origin; the results are checked pixel by pixel.
@Suite("Server: trim")
struct ServerTrimTests {
    static let nearWhite = RGBA(r: 250, g: 250, b: 250)
    static let blue = RGBA(r: 0, g: 0, b: 255)

    /// 60×40 white with a red 20×10 rectangle at (10, 5) and a near-white 10×10 one at (40, 25).
    static let drawing = TrimCanvas.bitmap(width: 60, height: 40, [
        (PixelRect(x: 10, y: 5, width: 20, height: 10), TrimCanvas.red),
        (PixelRect(x: 40, y: 25, width: 10, height: 10), nearWhite),
    ])

    private func png(_ bitmap: Bitmap) throws -> [UInt8] {
        Array(try CodersManager().encode(Image(bitmap: bitmap), as: .png, options: .default))
    }

    /// Runs `body` with a server and the path prefix of each bitmap served as a PNG.
    private func withSources(_ bitmaps: [String: Bitmap],
                             _ body: @escaping @Sendable (ServerHarness, _ sources: [String: String]) async throws -> Void) async throws {
        var files: [String: [UInt8]] = [:]
        for (name, bitmap) in bitmaps { files[name] = try png(bitmap) }
        try await withTestOrigin { [files] origin in
            var sources: [String: String] = [:]
            for (name, bytes) in files {
                origin.setRoute("/\(name).png", .data(bytes, contentType: "image/png"))
                sources[name] = "plain/http://127.0.0.1:\(origin.port)/\(name).png"
            }
            try await withImageServer(loopbackServerConfiguration()) { [sources] server in
                try await body(server, sources)
            }
        }
    }

    private func image(_ server: ServerHarness, _ path: String, sourceLocation: SourceLocation = #_sourceLocation) async throws -> Image {
        let reply = try await server.get(path)
        try #require(reply.status == 200, "\(path): \(reply.status) \(String(decoding: reply.body, as: UTF8.self))",
                     sourceLocation: sourceLocation)
        return try server.decode(reply)
    }

    private func expectUniform(_ image: Image, _ color: RGBA, sourceLocation: SourceLocation = #_sourceLocation) {
        let bitmap = image.bitmap
        for y in 0..<bitmap.height {
            for x in 0..<bitmap.width where bitmap.pixel(x: x, y: y) != color {
                Issue.record("(\(x), \(y)) is \(bitmap.pixel(x: x, y: y)), not \(color)", sourceLocation: sourceLocation)
                return
            }
        }
    }

    /// The threshold decides what is border: at 10 the near-white square is border and only the
    /// red rectangle is left; at 3 the square is content too.
    @Test func trimRemovesExactlyTheBorder() async throws {
        try await withSources(["d": Self.drawing]) { server, sources in
            let red = try await image(server, "/insecure/trim:10/\(sources["d"]!)@png")
            #expect(red.pixelSize == PixelSize(width: 20, height: 10))
            expectUniform(red, TrimCanvas.red)
            let both = try await image(server, "/insecure/t:3/\(sources["d"]!)@png")
            #expect(both.pixelSize == PixelSize(width: 40, height: 30))
            #expect(both.bitmap.pixels == Self.crop(Self.drawing, PixelRect(x: 10, y: 5, width: 40, height: 30)).pixels)
        }
    }

    /// equal_hor and equal_ver remove the smaller margin from both sides: left 10 of 10 and 30,
    /// top 5 of 5 and 25.
    @Test func equalMarginsKeepTheImageCentred() async throws {
        try await withSources(["d": Self.drawing]) { server, sources in
            let hor = try await image(server, "/insecure/t:10::1/\(sources["d"]!)@png")
            #expect(hor.bitmap.pixels == Self.crop(Self.drawing, PixelRect(x: 10, y: 5, width: 40, height: 10)).pixels)
            let both = try await image(server, "/insecure/t:10::1:1/\(sources["d"]!)@png")
            #expect(both.bitmap.pixels == Self.crop(Self.drawing, PixelRect(x: 10, y: 5, width: 40, height: 30)).pixels)
        }
    }

    /// The colour defaults to the top-left pixel's: a blue frame is trimmed by default, and with
    /// an explicit white nothing is (the frame differs from white); the white inside is trimmed
    /// by a second pass only when the frame is gone.
    @Test func theColourIsTheTopLeftPixelsUnlessGiven() async throws {
        let framed = TrimCanvas.bitmap(width: 30, height: 20, fill: Self.blue, [
            (PixelRect(x: 3, y: 3, width: 24, height: 14), TrimCanvas.white),
            (PixelRect(x: 10, y: 8, width: 6, height: 4), TrimCanvas.red),
        ])
        try await withSources(["f": framed]) { server, sources in
            let byCorner = try await image(server, "/insecure/t:10/\(sources["f"]!)@png")
            #expect(byCorner.bitmap.pixels == Self.crop(framed, PixelRect(x: 3, y: 3, width: 24, height: 14)).pixels)
            let white = try await image(server, "/insecure/t:10:fff/\(sources["f"]!)@png")
            #expect(white.pixelSize == PixelSize(width: 30, height: 20))
            let blue = try await image(server, "/insecure/t:10:0000ff/\(sources["f"]!)@png")
            #expect(blue.pixelSize == PixelSize(width: 24, height: 14))
        }
    }

    /// An image that is all border comes back whole; a trimmed image is then resized as if it
    /// were the source (imgproxy trims before planning the resize).
    @Test func anAllBorderImageAndTheResizeAfterTheTrim() async throws {
        let plain = Bitmap(width: 24, height: 16, fill: TrimCanvas.white)
        try await withSources(["p": plain, "d": Self.drawing]) { server, sources in
            let whole = try await image(server, "/insecure/t:10/\(sources["p"]!)@png")
            #expect(whole.pixelSize == PixelSize(width: 24, height: 16))
            expectUniform(whole, TrimCanvas.white)
            let resized = try await image(server, "/insecure/t:10/rs:fit:10:10/\(sources["d"]!)@png")
            #expect(resized.pixelSize == PixelSize(width: 10, height: 5))
            expectUniform(resized, TrimCanvas.red)
            let filled = try await image(server, "/insecure/t:10/rs:fill:6:6/\(sources["d"]!)@png")
            #expect(filled.pixelSize == PixelSize(width: 6, height: 6))
            expectUniform(filled, TrimCanvas.red)
        }
    }

    @Test func badTrimArgumentsAreA400() async throws {
        try await withSources(["d": Self.drawing]) { server, sources in
            for bad in ["t:-1", "t:nan", "t:1e999", "t:10:zzz", "t:1:2:3:4:5"] {
                let reply = try await server.get("/insecure/\(bad)/\(sources["d"]!)@png")
                #expect(reply.status == 400, "\(bad)")
                #expect(reply.error?.name == "invalid_argument", "\(bad)")
            }
        }
    }

    static func crop(_ bitmap: Bitmap, _ rect: PixelRect) -> Bitmap {
        Bitmap(width: rect.width, height: rect.height, pixels: (rect.y..<rect.y + rect.height).flatMap { y in
            let start = (y * bitmap.width + rect.x) * 4
            return bitmap.pixels[start..<start + rect.width * 4]
        })
    }
}
