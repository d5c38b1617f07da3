import Testing
@testable import WebImage
@testable import WebImageServer

/// Where the watermark goes and how it blends, from sizes and pixels alone.
@Suite("Watermark placement and blending")
struct WatermarkPlacementTests {
    private typealias Watermark = ProcessingOptions.Watermark
    private let mark = PixelSize(width: 10, height: 10)
    private let result = PixelSize(width: 100, height: 100)

    private func origin(_ position: ProcessingOptions.WatermarkPosition, x: Double = 0, y: Double = 0,
                        dpr: Double = 1) -> [Int] {
        let (xs, ys) = WatermarkPlacement.origins(mark: mark, result: result,
                                                  watermark: Watermark(opacity: 1, position: position, x: x, y: y), dpr: dpr)
        return xs + ys
    }

    /// The nine anchors, imgproxy's centring (half the leftover plus one, half to even) and
    /// offsets inwards from the anchored edges, × the dpr, or as fractions.
    @Test func anchorsAndOffsets() {
        #expect(origin(.center) == [46, 46])
        #expect(origin(.northWest) == [0, 0])
        #expect(origin(.north) == [46, 0])
        #expect(origin(.northEast) == [90, 0])
        #expect(origin(.east) == [90, 46])
        #expect(origin(.southEast) == [90, 90])
        #expect(origin(.south) == [46, 90])
        #expect(origin(.southWest) == [0, 90])
        #expect(origin(.west) == [0, 46])
        #expect(origin(.southEast, x: 10, y: 20) == [80, 70])
        #expect(origin(.northWest, x: 10, y: 20, dpr: 2) == [20, 40])
        #expect(origin(.northWest, x: 0.25, y: 0.5) == [25, 50])
        #expect(origin(.center, x: -6) == [40, 46])
    }

    /// Offsets past the edge leave at least one pixel of the watermark on the image, however large.
    @Test func hugeOffsetsAreClamped() {
        #expect(origin(.northWest, x: 1e300, y: -1e300) == [99, -9])
        #expect(origin(.southEast, x: 1e300, y: -1e300) == [-9, 99])
        #expect(origin(.center, x: -.greatestFiniteMagnitude, y: 2147483647, dpr: 1e9) == [-9, 99])
    }

    /// Replicated: an odd number of tiles (mark plus spacing, split around it) centred on the image.
    @Test func replicateTilesFromTheCentre() {
        let (xs, ys) = WatermarkPlacement.origins(mark: mark, result: result, watermark: Watermark(opacity: 1, position: .replicate), dpr: 1)
        // 11 tiles of 10 cover 110: 5 pixels hang over each side.
        #expect(xs == Array(stride(from: -5, to: 100, by: 10)))
        #expect(ys == xs)
        let spaced = WatermarkPlacement.origins(mark: mark, result: result,
                                                watermark: Watermark(opacity: 1, position: .replicate, x: 10, y: 30), dpr: 1)
        #expect(spaced.xs == [5, 25, 45, 65, 85])
        // Tiles of 40: 3 of them (120) centred, the mark 15 pixels into each.
        #expect(spaced.ys == [5, 45, 85])
        // A spacing as large as anything is one copy, centred.
        let lone = WatermarkPlacement.origins(mark: mark, result: result,
                                              watermark: Watermark(opacity: 1, position: .replicate, x: 1e300, y: 1e300), dpr: 1)
        #expect(lone.xs.count == 1 && lone.ys.count == 1)
    }

    /// The scale fits the watermark into that fraction of the result, enlarging it if need be.
    @Test func scaleFitsTheResult() {
        #expect(WatermarkPlacement.scaledSize(of: mark, on: result, scale: 0) == mark)
        #expect(WatermarkPlacement.scaledSize(of: mark, on: result, scale: 0.5) == PixelSize(width: 50, height: 50))
        #expect(WatermarkPlacement.scaledSize(of: PixelSize(width: 20, height: 10), on: PixelSize(width: 100, height: 40), scale: 0.5)
            == PixelSize(width: 40, height: 20))
        #expect(WatermarkPlacement.scaledSize(of: mark, on: result, scale: 1e-9) == PixelSize(width: 1, height: 1))
        let huge = WatermarkPlacement.scaledSize(of: mark, on: result, scale: 1e300)
        #expect(huge.width == Int(Int32.max) && huge.height == Int(Int32.max))
    }

    /// "Over" with straight alpha: half opacity mixes half; an opaque base stays opaque; on a
    /// transparent base the mark keeps its colour with its (scaled) coverage.
    @Test func blendIsOver() {
        let black = Bitmap(width: 2, height: 2, fill: RGBA(r: 0, g: 0, b: 0))
        let white = Bitmap(width: 4, height: 4, fill: RGBA(r: 255, g: 255, b: 255))
        let half = WatermarkBlend.draw(black, over: white, xs: [1], ys: [1], opacity: 0.5)
        #expect(half.pixel(x: 1, y: 1) == RGBA(r: 127, g: 127, b: 127))
        #expect(half.pixel(x: 2, y: 2) == RGBA(r: 127, g: 127, b: 127))
        #expect(half.pixel(x: 0, y: 0) == RGBA(r: 255, g: 255, b: 255))
        #expect(half.pixel(x: 3, y: 3) == RGBA(r: 255, g: 255, b: 255))
        let clear = Bitmap(width: 4, height: 4, fill: .clear)
        let onClear = WatermarkBlend.draw(black, over: clear, xs: [-1], ys: [3], opacity: 0.5)
        #expect(onClear.pixel(x: 0, y: 3) == RGBA(r: 0, g: 0, b: 0, a: 128))
        #expect(onClear.pixel(x: 1, y: 3) == .clear)
        // A half-transparent red base under a half-opacity blue mark: alpha 0.75, colour 2/3 blue.
        let red = Bitmap(width: 1, height: 1, fill: RGBA(r: 255, g: 0, b: 0, a: 128))
        let blue = Bitmap(width: 1, height: 1, fill: RGBA(r: 0, g: 0, b: 255))
        let mixed = WatermarkBlend.draw(blue, over: red, xs: [0], ys: [0], opacity: 0.5).pixel(x: 0, y: 0)
        #expect(mixed.isClose(to: RGBA(r: 85, g: 0, b: 170, a: 192), tolerance: 1), "\(mixed)")
        // Opacity 0, or no copy on the image: the image as it was.
        #expect(WatermarkBlend.draw(black, over: white, xs: [0], ys: [0], opacity: 0) == white)
        #expect(WatermarkBlend.draw(black, over: white, xs: [], ys: [0], opacity: 1) == white)
    }
}
