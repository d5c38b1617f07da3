import Foundation
import Testing
@testable import WebImage
@testable import WebImageServer
@testable import WebImageCodecs

/// `padding`, `pixelate` and `extend_aspect_ratio` end to end: real HTTP to the server, which
/// fetches an 80×60 quadrants PNG (red, green / blue, yellow) from the loopback origin; the
/// results are checked pixel by pixel.
@Suite("Server: padding, pixelate, extend_aspect_ratio")
struct ServerCanvasOptionTests {
    let quadrants = Array(try! CodersManager().encode(Image(bitmap: TestBitmaps.quadrants(width: 80, height: 60)),
                                                     as: .png, options: .default))
    static let clear = RGBA(r: 0, g: 0, b: 0, a: 0)
    static let white = RGBA(r: 255, g: 255, b: 255)
    static let black = RGBA(r: 0, g: 0, b: 0)

    /// Runs `body` with a server and the path prefix of the quadrants source.
    private func withQuadrants(_ adjust: @escaping @Sendable (inout ServerConfiguration) -> Void = { _ in },
                               _ body: @escaping @Sendable (ServerHarness, _ source: String) async throws -> Void) async throws {
        try await withTestOrigin { origin in
            origin.setRoute("/q.png", .data(quadrants, contentType: "image/png"))
            try await withImageServer(loopbackServerConfiguration(adjust)) { server in
                try await body(server, "plain/http://127.0.0.1:\(origin.port)/q.png")
            }
        }
    }

    private func image(_ server: ServerHarness, _ path: String, sourceLocation: SourceLocation = #_sourceLocation) async throws -> Image {
        let reply = try await server.get(path)
        try #require(reply.status == 200, "\(path): \(reply.status) \(String(decoding: reply.body, as: UTF8.self))",
                     sourceLocation: sourceLocation)
        return try server.decode(reply)
    }

    // MARK: padding

    /// The docs' example: a 100×200 result with `padding:10` is 120×220; the padding is
    /// transparent in a format with alpha.
    @Test func paddingSurroundsTheResizedImage() async throws {
        try await withQuadrants { server, source in
            let padded = try await image(server, "/insecure/rs:force:100:200:1/padding:10/\(source)@png")
            #expect(padded.pixelSize == PixelSize(width: 120, height: 220))
            let pixels = padded.bitmap
            for (x, y) in [(5, 5), (115, 5), (5, 215), (115, 215), (60, 3), (60, 216), (2, 110), (117, 110)] {
                #expect(pixels.pixel(x: x, y: y) == Self.clear, "(\(x), \(y))")
            }
            #expect(pixels.pixel(x: 12, y: 12) == TestBitmaps.red)
            #expect(pixels.pixel(x: 107, y: 12) == TestBitmaps.green)
            #expect(pixels.pixel(x: 12, y: 207) == TestBitmaps.blue)
            #expect(pixels.pixel(x: 107, y: 207) == TestBitmaps.yellow)
        }
    }

    /// Each side as asked (top, right, bottom, left), filled with `background`; white in a JPEG
    /// without one.
    @Test func paddingSidesAndTheirFill() async throws {
        try await withQuadrants { server, source in
            let sides = try await image(server, "/insecure/pd:10:20:30:40/bg:000000/\(source)@png")
            #expect(sides.pixelSize == PixelSize(width: 80 + 60, height: 60 + 40))
            let pixels = sides.bitmap
            #expect(pixels.pixel(x: 39, y: 50) == Self.black)     // left
            #expect(pixels.pixel(x: 40, y: 10) == TestBitmaps.red)
            #expect(pixels.pixel(x: 119, y: 10) == TestBitmaps.green)
            #expect(pixels.pixel(x: 120, y: 50) == Self.black)    // right
            #expect(pixels.pixel(x: 60, y: 9) == Self.black)      // top
            #expect(pixels.pixel(x: 119, y: 69) == TestBitmaps.yellow)
            #expect(pixels.pixel(x: 60, y: 70) == Self.black)     // bottom
            // 16 pixels: whole JPEG blocks of padding, so no colour bleeds into the probes.
            let jpeg = try await image(server, "/insecure/pd:16/\(source)@jpg")
            #expect(jpeg.pixelSize == PixelSize(width: 112, height: 92))
            #expect(jpeg.bitmap.pixel(x: 3, y: 3).isClose(to: Self.white, tolerance: 6))
            #expect(jpeg.bitmap.pixel(x: 108, y: 88).isClose(to: Self.white, tolerance: 6))
            #expect(jpeg.bitmap.pixel(x: 20, y: 20).isClose(to: TestBitmaps.red, tolerance: 40))
        }
    }

    /// The padding is scaled by the dpr (here 2 with `enlarge`).
    @Test func paddingFollowsTheDpr() async throws {
        try await withQuadrants { server, source in
            let padded = try await image(server, "/insecure/dpr:2/el:1/pd:5/bg:fff/\(source)@png")
            #expect(padded.pixelSize == PixelSize(width: 180, height: 140))
            #expect(padded.bitmap.pixel(x: 9, y: 9) == Self.white)
            #expect(padded.bitmap.pixel(x: 11, y: 11) == TestBitmaps.red)
            #expect(padded.bitmap.pixel(x: 169, y: 129) == TestBitmaps.yellow)
            #expect(padded.bitmap.pixel(x: 171, y: 129) == Self.white)
        }
    }

    /// A huge padding is scaled with the whole result to the dimension limit; without a limit,
    /// the canvas it would need is refused (422) before memory is taken.
    @Test func aHugePaddingStaysWithinTheLimits() async throws {
        try await withQuadrants({ $0.maxResultDimension = 64 }) { server, source in
            let bounded = try await image(server, "/insecure/pd:2147483647/\(source)@png")
            #expect(max(bounded.pixelSize.width, bounded.pixelSize.height) <= 64)
            #expect(bounded.bitmap.pixel(x: 0, y: 0) == Self.clear)
            let scaled = try await image(server, "/insecure/pd:40/\(source)@png")
            // 80 + 2 × 40 = 160 wide: everything at 0.4.
            #expect(scaled.pixelSize == PixelSize(width: 64, height: 56))
            #expect(scaled.bitmap.pixel(x: 20, y: 20) == TestBitmaps.red)
            #expect(scaled.bitmap.pixel(x: 10, y: 10) == Self.clear)
        }
        try await withQuadrants({ $0.maxResultDimension = 0 }) { server, source in
            let refused = try await server.get("/insecure/pd:100000/\(source)@png")
            #expect(refused.status == 422)
            #expect(refused.error?.name == "result_over_limits")
            #expect(refused.error?.message.contains("canvas") == true)
        }
    }

    @Test func badPaddingIsA400() async throws {
        try await withQuadrants { server, source in
            for bad in ["pd:-5", "pd:x", "pd:1:2:3:4:5", "pd:99999999999999999999", "pix:-1", "pix:1:2", "exar:1:sm"] {
                let reply = try await server.get("/insecure/\(bad)/\(source)@png")
                #expect(reply.status == 400, "\(bad)")
                #expect(reply.error?.name == "invalid_argument", "\(bad)")
            }
        }
    }

    // MARK: pixelate

    /// `pixelate:20` over 80×60 quadrants: blocks from the top-left, each its mean colour; the
    /// middle block row straddles red and blue (and green and yellow).
    @Test func pixelateFillsEachBlockWithItsMean() async throws {
        try await withQuadrants { server, source in
            let pixelated = try await image(server, "/insecure/pixelate:20/\(source)@png")
            #expect(pixelated.pixelSize == PixelSize(width: 80, height: 60))
            let pixels = pixelated.bitmap
            #expect(pixels.pixel(x: 0, y: 0) == TestBitmaps.red && pixels.pixel(x: 19, y: 19) == TestBitmaps.red)
            #expect(pixels.pixel(x: 79, y: 0) == TestBitmaps.green)
            #expect(pixels.pixel(x: 5, y: 25) == RGBA(r: 128, g: 0, b: 128))
            #expect(pixels.pixel(x: 19, y: 39) == RGBA(r: 128, g: 0, b: 128))
            #expect(pixels.pixel(x: 60, y: 30) == RGBA(r: 128, g: 255, b: 0))
            #expect(pixels.pixel(x: 79, y: 59) == TestBitmaps.yellow)
            // The same with the short name; 0 and 1 change nothing.
            let short = try await image(server, "/insecure/pix:20/\(source)@png")
            #expect(short.bitmap.pixels == pixels.pixels)
            let off = try await image(server, "/insecure/pix:1/\(source)@png")
            #expect(off.bitmap.pixels == TestBitmaps.quadrants(width: 80, height: 60).pixels)
        }
    }

    /// A block larger than the image is capped at its longer side: one colour, the mean over the
    /// image mirrored to a square.
    @Test func aHugePixelateIsOneBlock() async throws {
        try await withQuadrants { server, source in
            let pixelated = try await image(server, "/insecure/pix:2147483647/\(source)@png")
            let pixels = pixelated.bitmap
            let first = pixels.pixel(x: 0, y: 0)
            #expect(pixels.pixel(x: 79, y: 59) == first && pixels.pixel(x: 40, y: 30) == first)
            // An 80×80 block: the 60 rows and the bottom 20 mirrored, so red and green weigh 30
            // rows, blue and yellow 50: r = g = 255 × 80/160, b = 255 × 50/160, rounded.
            #expect(first == RGBA(r: 128, g: 128, b: 80))
        }
    }

    // MARK: extend_aspect_ratio

    /// `extend_aspect_ratio:1` with 300×600 asked of the 80×60 image (too small to grow): the
    /// canvas takes the target's 1:2 shape around the unscaled image, anchored by the gravity.
    @Test func extendAspectRatioGrowsTheCanvasToTheTargetsShape() async throws {
        try await withQuadrants { server, source in
            let centred = try await image(server, "/insecure/rs:fit:300:600/extend_aspect_ratio:1/\(source)@png")
            #expect(centred.pixelSize == PixelSize(width: 80, height: 160))
            #expect(centred.bitmap.pixel(x: 40, y: 49) == Self.clear)
            #expect(centred.bitmap.pixel(x: 10, y: 50) == TestBitmaps.red)
            #expect(centred.bitmap.pixel(x: 70, y: 109) == TestBitmaps.yellow)
            #expect(centred.bitmap.pixel(x: 40, y: 110) == Self.clear)
            let north = try await image(server, "/insecure/rs:fit:300:600/exar:1:no/bg:000/\(source)@png")
            #expect(north.pixelSize == PixelSize(width: 80, height: 160))
            #expect(north.bitmap.pixel(x: 10, y: 0) == TestBitmaps.red)
            #expect(north.bitmap.pixel(x: 70, y: 59) == TestBitmaps.yellow)
            #expect(north.bitmap.pixel(x: 40, y: 60) == Self.black)
            let wide = try await image(server, "/insecure/rs:fit:400:100/extend_ar:1:ea/\(source)@jpg")
            #expect(wide.pixelSize == PixelSize(width: 240, height: 60))
            #expect(wide.bitmap.pixel(x: 100, y: 30).isClose(to: Self.white, tolerance: 6))
            #expect(wide.bitmap.pixel(x: 170, y: 10).isClose(to: TestBitmaps.red, tolerance: 40))
            #expect(wide.bitmap.pixel(x: 230, y: 50).isClose(to: TestBitmaps.yellow, tolerance: 40))
            // Without both sides of a target there is no ratio to extend to.
            let widthOnly = try await image(server, "/insecure/w:300/exar:1/\(source)@png")
            #expect(widthOnly.pixelSize == PixelSize(width: 80, height: 60))
        }
    }

    // MARK: background

    /// `background` flattens the result's alpha in every format, as imgproxy does: a 40×20 PNG
    /// whose left half is opaque red, right half transparent and middle column half-transparent
    /// green comes back opaque over blue as PNG and as BMP, and keeps its alpha without `bg`.
    @Test func backgroundFlattensAlphaInEveryFormat() async throws {
        let halves = Bitmap(width: 40, height: 20) { out in
            for y in 0..<20 {
                for x in 0..<40 {
                    let pixel = x == 20 ? RGBA(r: 0, g: 255, b: 0, a: 128)
                        : x < 20 ? TestBitmaps.red : Self.clear
                    let i = (y * 40 + x) * 4
                    out[i] = pixel.r; out[i + 1] = pixel.g; out[i + 2] = pixel.b; out[i + 3] = pixel.a
                }
            }
        }
        let png = Array(try CodersManager().encode(Image(bitmap: halves), as: .png, options: .default))
        try await withTestOrigin { origin in
            origin.setRoute("/halves.png", .data(png, contentType: "image/png"))
            try await withImageServer(loopbackServerConfiguration()) { server in
                let source = "plain/http://127.0.0.1:\(origin.port)/halves.png"
                for format in ["png", "bmp"] {
                    let flat = try await image(server, "/insecure/bg:0000ff/\(source)@\(format)")
                    #expect(!flat.bitmap.hasAlpha, "\(format)")
                    #expect(flat.bitmap.pixel(x: 5, y: 5) == TestBitmaps.red, "\(format)")
                    #expect(flat.bitmap.pixel(x: 30, y: 5) == TestBitmaps.blue, "\(format)")
                    #expect(flat.bitmap.pixel(x: 20, y: 5) == RGBA(r: 0, g: 128, b: 127), "\(format)")
                }
                let kept = try await image(server, "/insecure/\(source)@png")
                #expect(kept.bitmap.pixel(x: 30, y: 5) == Self.clear)
                #expect(kept.bitmap.pixel(x: 20, y: 5) == RGBA(r: 0, g: 255, b: 0, a: 128))
                // Padding and flattening in one canvas: the padding takes the background too.
                let padded = try await image(server, "/insecure/pd:4/bg:0000ff/\(source)@png")
                #expect(padded.pixelSize == PixelSize(width: 48, height: 28))
                #expect(!padded.bitmap.hasAlpha)
                #expect(padded.bitmap.pixel(x: 1, y: 1) == TestBitmaps.blue)
                #expect(padded.bitmap.pixel(x: 34, y: 9) == TestBitmaps.blue)
                #expect(padded.bitmap.pixel(x: 24, y: 9) == RGBA(r: 0, g: 128, b: 127))
            }
        }
    }
}
