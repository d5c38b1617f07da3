import Testing
@testable import WebImage
@testable import WebImageCodecs
@testable import WebImageLoading

@Suite("Transform resize and crop")
struct TransformResizeCropTests {
    typealias F = TransformFixtures

    @Test func fillGivesExactlyTheSize() throws {
        let out = try #require(F.apply(ResizingTransformer(size: PointSize(width: 200, height: 100))))
        #expect(out.pixelSize == PixelSize(width: 200, height: 100))
        #expect(out.colourAt(100, 0).looksLike(.black))      // top stays on top
        #expect(out.colourAt(100, 99).looksLike(.white))     // bottom band
        #expect(out.colourAt(1, 50).looksLike(.black))       // left band
        #expect(out.colourAt(100, 50).a == 0)              // clear centre
    }

    @Test func aspectFitLetterboxesOnAClearCanvas() throws {
        let out = try #require(F.apply(ResizingTransformer(size: PointSize(width: 2000, height: 1000),
                                                           scaleMode: .aspectFit)))
        #expect(out.pixelSize == PixelSize(width: 2000, height: 1000))
        #expect(out.colourAt(1000, 0).looksLike(.black))     // top-centre black: not flipped
        #expect(out.colourAt(1000, 999).looksLike(.white))
        #expect(out.colourAt(100, 500).a == 0)             // letterbox
        #expect(out.colourAt(1900, 500).a == 0)
        #expect(out.colourAt(510, 500).looksLike(.black))    // the content starts at x = 500
        #expect(out.colourAt(505, 5).looksLike(F.red))
    }

    @Test func aspectFillCropsTheCentre() throws {
        let out = try #require(F.apply(ResizingTransformer(size: PointSize(width: 200, height: 100),
                                                           scaleMode: .aspectFill)))
        #expect(out.pixelSize == PixelSize(width: 200, height: 100))
        // Source rows 75..<225 at 2/3 scale: no corners, no top or bottom band.
        #expect(out.colourAt(1, 1).looksLike(.black))
        #expect(out.colourAt(1, 98).looksLike(.black))
        #expect(out.colourAt(198, 50).looksLike(F.halfBlue, tolerance: 2))
        #expect(out.colourAt(100, 1).a == 0)
    }

    @Test func pointsAreMultipliedByTheImageScale() throws {
        let out = try #require(F.apply(ResizingTransformer(size: PointSize(width: 50, height: 25)),
                                       to: F.image(scale: 2)))
        #expect(out.pixelSize == PixelSize(width: 100, height: 50))
        #expect(out.scale == 2)
    }

    @Test func shrinkingAveragesAndKeepsEdgesClean() {
        // A one-pixel checkerboard halves to an even grey (area filter, not point sampling).
        let checker = Bitmap(width: 8, height: 8) { out in
            for i in 0..<64 {
                let v: UInt8 = (i % 8 + i / 8) % 2 == 0 ? 255 : 0
                out[i * 4] = v; out[i * 4 + 1] = v; out[i * 4 + 2] = v; out[i * 4 + 3] = 255
            }
        }
        let half = Resampler.resize(checker, to: PixelSize(width: 4, height: 4), filter: .area)
        #expect(half.pixels.enumerated().allSatisfy { $0.offset % 4 == 3 ? $0.element == 255 : abs(Int($0.element) - 128) <= 1 })
        // Red beside clear: no dark fringe, colour stays red where anything is visible.
        var px = [UInt8](repeating: 0, count: 6 * 4)
        for i in 0..<3 { px[i * 4] = 255; px[i * 4 + 3] = 255 }
        let shrunk = Resampler.resize(Bitmap(width: 6, height: 1, pixels: px), to: PixelSize(width: 4, height: 1))
        for x in 0..<4 where shrunk.pixel(x: x, y: 0).a > 0 {
            #expect(shrunk.pixel(x: x, y: 0).r == 255)
        }
    }

    @Test func enlargingInterpolates() {
        let px: [UInt8] = [0, 0, 0, 255, 255, 255, 255, 255]
        let big = Resampler.resize(Bitmap(width: 2, height: 1, pixels: px), to: PixelSize(width: 4, height: 1),
                                   filter: .area)
        let reds = (0..<4).map { Int(big.pixel(x: $0, y: 0).r) }
        #expect(reds == [0, 64, 191, 255])
    }

    @Test func cropKeepsTheRectangle() throws {
        let out = try #require(F.apply(CroppingTransformer(rect: PointRect(x: 50, y: 10, width: 200, height: 200))))
        #expect(out.pixelSize == PixelSize(width: 200, height: 200))
        #expect(out.colourAt(0, 0).a == 0)                  // source (50, 10) is clear
        #expect(out.colourAt(100, 10) == .black)            // source (150, 20)
        #expect(out.colourAt(0, 100) == .clear)             // source (50, 110)
        #expect(out.colourAt(199, 199) == .clear)
        let corner = try #require(F.apply(CroppingTransformer(rect: PointRect(x: 250, y: 0, width: 50, height: 50))))
        #expect(corner.colourAt(40, 5) == F.green)
        #expect(corner.colourAt(15, 40) == F.halfBlue)
    }

    @Test func cropPastTheEdgeKeepsTheInsideAndOutsideFails() throws {
        let out = try #require(F.apply(CroppingTransformer(rect: PointRect(x: 250, y: 250, width: 100, height: 100))))
        #expect(out.pixelSize == PixelSize(width: 50, height: 50))
        #expect(out.colourAt(49, 49) == F.yellow)
        #expect(F.apply(CroppingTransformer(rect: PointRect(x: 400, y: 0, width: 10, height: 10))) == nil)
        #expect(F.apply(CroppingTransformer(rect: PointRect(x: 0, y: 0, width: 0, height: 10))) == nil)
        #expect(F.apply(CroppingTransformer(rect: PointRect(x: .nan, y: 0, width: 10, height: 10))) == nil)
    }

    @Test func cropUsesPointsTimesScale() throws {
        let out = try #require(F.apply(CroppingTransformer(rect: PointRect(x: 125, y: 0, width: 25, height: 25)),
                                       to: F.image(scale: 2)))
        #expect(out.pixelSize == PixelSize(width: 50, height: 50))
        #expect(out.colourAt(45, 5) == F.green)
    }

    @Test func absurdSizesFailInsteadOfAllocating() {
        #expect(F.apply(ResizingTransformer(size: PointSize(width: 0, height: 10))) == nil)
        #expect(F.apply(ResizingTransformer(size: PointSize(width: -5, height: 10))) == nil)
        #expect(F.apply(ResizingTransformer(size: PointSize(width: .infinity, height: 10))) == nil)
        #expect(F.apply(ResizingTransformer(size: PointSize(width: 1e6, height: 1e6))) == nil)
    }
}
