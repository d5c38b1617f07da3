import Foundation
import Testing
@testable import WebImage
@testable import WebImageServer
@testable import WebImageCodecs

/// `watermark` / `wm` end to end: real HTTP to the server, which fetches a 100×100 source from the
/// loopback origin (white, or transparent) and draws its watermark (a 10×10 black square, unless
/// a test says otherwise) over the result; the results are checked pixel by pixel.
@Suite("Server: watermark")
struct ServerWatermarkTests {
    static let white = RGBA(r: 255, g: 255, b: 255)
    static let black = RGBA(r: 0, g: 0, b: 0)
    static let gray = RGBA(r: 127, g: 127, b: 127)

    static func png(_ bitmap: Bitmap) -> [UInt8] {
        Array(try! CodersManager().encode(Image(bitmap: bitmap), as: .png, options: .default))
    }

    static let whiteSource = png(Bitmap(width: 100, height: 100, fill: white))
    static let clearSource = png(Bitmap(width: 100, height: 100, fill: .clear))
    static let blackMark = Data(png(Bitmap(width: 10, height: 10, fill: black)))

    /// Runs `body` with a server whose watermark is `mark` (nil: none) and the path prefixes of
    /// the white and the transparent sources.
    private func withServer(mark: Data? = blackMark, _ adjust: @escaping @Sendable (inout ServerConfiguration) -> Void = { _ in },
                            _ body: @escaping @Sendable (ServerHarness, _ white: String, _ clear: String) async throws -> Void)
        async throws {
        try await withTestOrigin { origin in
            origin.setRoute("/white.png", .data(Self.whiteSource, contentType: "image/png"))
            origin.setRoute("/clear.png", .data(Self.clearSource, contentType: "image/png"))
            let configuration = loopbackServerConfiguration { configuration in
                configuration.watermark = mark.map { .data($0) }
                adjust(&configuration)
            }
            try await withImageServer(configuration) { server in
                try await body(server, "plain/http://127.0.0.1:\(origin.port)/white.png",
                               "plain/http://127.0.0.1:\(origin.port)/clear.png")
            }
        }
    }

    private func image(_ server: ServerHarness, _ path: String, sourceLocation: SourceLocation = #_sourceLocation) async throws -> Bitmap {
        let reply = try await server.get(path)
        try #require(reply.status == 200, "\(path): \(reply.status) \(String(decoding: reply.body, as: UTF8.self))",
                     sourceLocation: sourceLocation)
        return try server.decode(reply).bitmap
    }

    /// Expects `colour` at each point of `inside` and white at each of `outside`.
    private func expect(_ bitmap: Bitmap, _ colour: RGBA = black, at inside: [(Int, Int)], whiteAt outside: [(Int, Int)],
                        _ label: String, sourceLocation: SourceLocation = #_sourceLocation) {
        for (x, y) in inside {
            #expect(bitmap.pixel(x: x, y: y).isClose(to: colour, tolerance: 2), "\(label) (\(x), \(y)): \(bitmap.pixel(x: x, y: y))",
                    sourceLocation: sourceLocation)
        }
        for (x, y) in outside {
            #expect(bitmap.pixel(x: x, y: y) == Self.white, "\(label) (\(x), \(y)): \(bitmap.pixel(x: x, y: y))",
                    sourceLocation: sourceLocation)
        }
    }

    /// Each position puts the 10×10 mark at its edge or corner, or centred at 46 (imgproxy's
    /// rounding), and nowhere else.
    @Test func eachPositionLandsWhereExpected() async throws {
        let cases: [(String, inside: [(Int, Int)], outside: [(Int, Int)])] = [
            ("ce", [(46, 46), (55, 55), (50, 50)], [(45, 50), (56, 50), (50, 45), (50, 56), (2, 2)]),
            ("no", [(46, 0), (55, 9)], [(50, 10), (45, 0), (50, 50)]),
            ("so", [(46, 90), (55, 99)], [(50, 89), (56, 99), (50, 50)]),
            ("ea", [(90, 46), (99, 55)], [(89, 50), (99, 45), (50, 50)]),
            ("we", [(0, 46), (9, 55)], [(10, 50), (0, 56), (50, 50)]),
            ("noea", [(90, 0), (99, 9)], [(89, 0), (99, 10), (2, 2)]),
            ("nowe", [(0, 0), (9, 9)], [(10, 0), (0, 10), (97, 97)]),
            ("soea", [(90, 90), (99, 99)], [(89, 99), (99, 89), (2, 2)]),
            ("sowe", [(0, 90), (9, 99)], [(10, 99), (0, 89), (97, 2)]),
        ]
        try await withServer { server, white, _ in
            for (position, inside, outside) in cases {
                let bitmap = try await image(server, "/insecure/wm:1:\(position)/\(white)@png")
                #expect(bitmap.size == PixelSize(width: 100, height: 100))
                expect(bitmap, at: inside, whiteAt: outside, position)
            }
            // Offsets inwards from the anchored edges, in pixels × the dpr, or as fractions.
            let offset = try await image(server, "/insecure/wm:1:nowe:20:30/\(white)@png")
            expect(offset, at: [(20, 30), (29, 39)], whiteAt: [(19, 35), (25, 29), (30, 35), (5, 5)], "nowe:20:30")
            let fraction = try await image(server, "/insecure/wm:1:soea:0.1:0.2/\(white)@png")
            expect(fraction, at: [(80, 70), (89, 79)], whiteAt: [(90, 75), (85, 80), (95, 95)], "soea:0.1:0.2")
        }
    }

    /// imgproxy's parser test URL (`watermark:0.5:soea:10:20:0.6`): the mark fitted into 60×60,
    /// 10 and 20 pixels in from the bottom-right corner, at half opacity.
    @Test func theDocumentedExample() async throws {
        try await withServer { server, white, _ in
            let bitmap = try await image(server, "/insecure/watermark:0.5:soea:10:20:0.6/\(white)@png")
            expect(bitmap, Self.gray, at: [(30, 20), (89, 79), (60, 50)], whiteAt: [(29, 50), (90, 50), (60, 19), (60, 80)],
                   "watermark:0.5:soea:10:20:0.6")
        }
    }

    /// The URL's opacity times the server's base opacity; opacity 0 draws nothing.
    @Test func opacityBlends() async throws {
        try await withServer { server, white, _ in
            let half = try await image(server, "/insecure/wm:0.5/\(white)@png")
            expect(half, Self.gray, at: [(46, 46), (55, 55)], whiteAt: [(45, 45), (56, 56)], "wm:0.5")
            let none = try await image(server, "/insecure/wm:0:ce/\(white)@png")
            expect(none, at: [], whiteAt: [(50, 50)], "wm:0")
        }
        try await withServer({ $0.watermarkOpacity = 0.5 }) { server, white, _ in
            let base = try await image(server, "/insecure/wm:1/\(white)@png")
            expect(base, Self.gray, at: [(50, 50)], whiteAt: [(40, 40)], "base 0.5 × wm:1")
            let quarter = try await image(server, "/insecure/wm:0.5/\(white)@png")
            expect(quarter, RGBA(r: 191, g: 191, b: 191), at: [(50, 50)], whiteAt: [(40, 40)], "base 0.5 × wm:0.5")
        }
    }

    /// `re` tiles the mark from the centre; offsets are the space between copies.
    @Test func replicateTiles() async throws {
        try await withServer { server, white, _ in
            let solid = try await image(server, "/insecure/wm:1:re/\(white)@png")
            expect(solid, at: [(0, 0), (50, 50), (99, 99), (4, 95), (95, 4)], whiteAt: [], "wm:1:re")
            let spaced = try await image(server, "/insecure/wm:1:re:10:10/\(white)@png")
            expect(spaced, at: [(5, 5), (14, 14), (25, 25), (45, 85), (94, 94)],
                   whiteAt: [(0, 0), (4, 50), (15, 15), (20, 20), (35, 50), (99, 99)], "wm:1:re:10:10")
        }
    }

    /// The scale fits the mark into that fraction of the result (enlarged here), centred.
    @Test func scaleSizesTheMark() async throws {
        try await withServer { server, white, _ in
            let bitmap = try await image(server, "/insecure/wm:1:ce:0:0:0.5/\(white)@png")
            expect(bitmap, at: [(26, 26), (50, 50), (75, 75)], whiteAt: [(24, 50), (77, 50), (50, 24), (50, 77)], "scale 0.5")
            // The scale follows the result, not the source.
            let small = try await image(server, "/insecure/rs:fit:50:50/wm:1:nowe:0:0:0.2/\(white)@png")
            #expect(small.size == PixelSize(width: 50, height: 50))
            expect(small, at: [(0, 0), (9, 9)], whiteAt: [(11, 5), (5, 11)], "fit 50, scale 0.2")
        }
    }

    /// Over a transparent result the mark keeps its colour with its coverage; a JPEG result is
    /// flattened first, so the watermark on it is opaque.
    @Test func alphaComposesOver() async throws {
        try await withServer { server, _, clear in
            let png = try await image(server, "/insecure/wm:0.5/\(clear)@png")
            #expect(png.pixel(x: 50, y: 50) == RGBA(r: 0, g: 0, b: 0, a: 128))
            #expect(png.pixel(x: 5, y: 5) == .clear)
            let jpeg = try await image(server, "/insecure/wm:0.5:nowe:0:0:0.3/\(clear)@jpg")
            #expect(jpeg.pixel(x: 10, y: 10).isClose(to: Self.gray, tolerance: 6), "\(jpeg.pixel(x: 10, y: 10))")
            #expect(jpeg.pixel(x: 80, y: 80).isClose(to: Self.white, tolerance: 3), "\(jpeg.pixel(x: 80, y: 80))")
            #expect(!jpeg.hasAlpha)
        }
    }

    /// Without a watermark `wm` changes nothing, as in imgproxy: the plain result.
    @Test func withoutAWatermarkWmIsIgnored() async throws {
        try await withServer(mark: nil) { server, white, _ in
            let plain = try await image(server, "/insecure/\(white)@png")
            let marked = try await image(server, "/insecure/wm:1:re/\(white)@png")
            #expect(marked == plain)
            #expect(marked.pixel(x: 50, y: 50) == Self.white)
        }
    }

    /// A result without the watermark and one with it are cached apart, both ways round.
    @Test func watermarkedResultsAreCachedApart() async throws {
        try await withServer { server, white, _ in
            for _ in 0..<2 {
                let plain = try await image(server, "/insecure/rs:fit:80:80/\(white)@png")
                let marked = try await image(server, "/insecure/rs:fit:80:80/wm:1/\(white)@png")
                let moved = try await image(server, "/insecure/rs:fit:80:80/wm:1:nowe/\(white)@png")
                #expect(plain.pixel(x: 40, y: 40) == Self.white)
                #expect(marked.pixel(x: 40, y: 40) == Self.black)
                #expect(moved.pixel(x: 40, y: 40) == Self.white && moved.pixel(x: 2, y: 2) == Self.black)
            }
        }
    }

    /// Every frame of an animation carries the watermark, scaled once for all of them.
    @Test func everyFrameOfAnAnimationIsMarked() async throws {
        let gif = try ServerAnimationTests.animation()
        try await withTestOrigin { origin in
            origin.setRoute("/anim.gif", .data(gif, contentType: "image/gif"))
            let configuration = loopbackServerConfiguration { configuration in
                configuration.watermark = .data(Self.blackMark)
                configuration.maxAnimationFrames = 10
            }
            try await withImageServer(configuration) { server in
                let reply = try await server.get("/insecure/wm:1:nowe:0:0:0.2/f:webp/plain/http://127.0.0.1:\(origin.port)/anim.gif")
                #expect(reply.status == 200)
                let image = try server.decode(reply)
                #expect(image.frames.count == 3)
                for (frame, colour) in zip(image.frames, ServerAnimationTests.colours) {
                    // 200×100: the mark fitted into 40×20 is 20×20, at the top-left.
                    #expect(frame.bitmap.pixel(x: 10, y: 10).isClose(to: Self.black, tolerance: 8), "\(frame.bitmap.pixel(x: 10, y: 10))")
                    #expect(frame.bitmap.pixel(x: 30, y: 10).isClose(to: colour, tolerance: 8), "\(frame.bitmap.pixel(x: 30, y: 10))")
                    #expect(frame.bitmap.pixel(x: 10, y: 30).isClose(to: colour, tolerance: 8))
                }
            }
        }
    }

    /// Hostile numbers: out of range is a 400, huge offsets are clamped, a scale past the limits a
    /// 422; the server keeps answering.
    @Test func hostileValuesNeverTrap() async throws {
        try await withServer { server, white, _ in
            for bad in ["wm:1e308", "wm:1:ce:1e999", "wm:1:ce:0:0:-2", "wm:0.5:xx"] {
                let reply = try await server.get("/insecure/\(bad)/\(white)@png")
                #expect(reply.status == 400, "\(bad): \(reply.status)")
            }
            let far = try await image(server, "/insecure/wm:1:nowe:1e300:-1e300/\(white)@png")
            expect(far, at: [(99, 0)], whiteAt: [(98, 0), (99, 1), (50, 50)], "nowe:1e300:-1e300")
            let spaced = try await image(server, "/insecure/wm:1:re:-1e300:1e300/\(white)@png")
            #expect(spaced.pixel(x: 0, y: 50) == Self.black && spaced.pixel(x: 50, y: 40) == Self.white)
            let huge = try await server.get("/insecure/wm:1:ce:0:0:1e9/\(white)@png")
            #expect(huge.status == 422 && huge.error?.name == "result_over_limits", "\(huge.status)")
            let scaled = try await image(server, "/insecure/wm:1:ce:0:0:1/\(white)@png")
            expect(scaled, at: [(0, 0), (99, 99)], whiteAt: [], "scale 1")
        }
    }
}
