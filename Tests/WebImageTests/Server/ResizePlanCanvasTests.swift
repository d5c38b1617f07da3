import Testing
@testable import WebImage
@testable import WebImageServer

/// The canvas steps of the plan — `extend_aspect_ratio` and `padding` after `extend` — checked
/// against the sizes imgproxy's own tests expect (its `geometry.png` is 200×100, as here).
@Suite("Resize plan: aspect-ratio extension and padding")
struct ResizePlanCanvasTests {
    static let landscape = PixelSize(width: 200, height: 100)

    func plan(_ options: String, source: PixelSize = landscape, maxResultDimension: Int = 0) throws -> ResizePlan {
        ResizePlan(options: try urlOptions(options), sourceSize: source, maxResultDimension: maxResultDimension)
    }

    func size(_ width: Int, _ height: Int) -> PixelSize { PixelSize(width: width, height: height) }

    /// imgproxy's padding cases (`dpr:D/padding:20:30:40:10/enlarge:1`): the padding follows the dpr.
    @Test(arguments: [(0.5, 120, 80), (1.0, 240, 160), (2.0, 480, 320)])
    func paddingFollowsTheDpr(dpr: Double, width: Int, height: Int) throws {
        let padded = try plan("dpr:\(dpr)/padding:20:30:40:10/background:f00/enlarge:1")
        #expect(padded.resultSize == size(width, height))
        #expect(padded.imageOrigin == PixelPoint(x: Int(10 * dpr), y: Int(20 * dpr)))
    }

    /// The docs' example: 100×200 and `padding:10` make 120×220.
    @Test func paddingIsAddedAfterTheResize() throws {
        let forced = try plan("rs:force:100:200/padding:10", source: size(400, 400))
        #expect(forced.scaledSize == size(100, 200))
        #expect(forced.canvas == size(120, 220) && forced.imageOrigin == PixelPoint(x: 10, y: 10))
        // After the extension too: the canvas grows by the padding.
        let extended = try plan("rs:fit:300:300:0:1/pd:5:0")
        #expect(extended.canvas == size(300, 310) && extended.imageOrigin == PixelPoint(x: 50, y: 105))
    }

    /// The padding's dpr is the one used: without `enlarge` it is capped where the image cannot grow.
    @Test func paddingUsesTheCappedDprAndRoundsHalfToEven() throws {
        #expect(try plan("dpr:2/pd:10").resultSize == size(220, 120))
        // 5 × 0.5 = 2.5 rounds to 2; 7 × 0.5 = 3.5 rounds to 4.
        let half = try plan("dpr:0.5/el:1/pd:5:7")
        #expect(half.scaledSize == size(100, 50))
        #expect(half.canvas == size(108, 54) && half.imageOrigin == PixelPoint(x: 4, y: 2))
    }

    /// imgproxy's `extend_aspect_ratio` cases: 300×600 asked of 200×100 gives 200×400 (150×300 at dpr 0.5).
    @Test func extendAspectRatioMatchesImgproxysCases() throws {
        let centre = try plan("w:300/h:600/extend_aspect_ratio:1:ce")
        #expect(centre.scaledSize == Self.landscape)
        #expect(centre.canvas == size(200, 400) && centre.imageOrigin == PixelPoint(x: 0, y: 150))
        let north = try plan("w:300/h:600/exar:1:no:0:5")
        #expect(north.canvas == size(200, 400) && north.imageOrigin == PixelPoint(x: 0, y: 5))
        let half = try plan("w:300/h:600/exar:1:no:0:5/dpr:0.5")
        #expect(half.canvas == size(150, 300) && half.imageOrigin == PixelPoint(x: 0, y: 4))
        let south = try plan("w:300/h:600/exar:1:so")
        #expect(south.imageOrigin == PixelPoint(x: 0, y: 300))
        // Wider than tall: the width grows.
        let wide = try plan("w:600/h:100/exar:1:we")
        #expect(wide.canvas == size(600, 100) && wide.imageOrigin == .zero)
    }

    @Test func extendAspectRatioNeedsBothSidesAndAnotherRatio() throws {
        #expect(try plan("w:300/exar:1").canvas == nil)
        #expect(try plan("h:300/exar:1").canvas == nil)
        #expect(try plan("w:100/h:50/exar:1").canvas == nil)
        #expect(try plan("w:300/h:600/exar:0").canvas == nil)
        // Padding comes after it.
        let padded = try plan("w:300/h:600/exar:1/pd:1")
        #expect(padded.canvas == size(202, 402) && padded.imageOrigin == PixelPoint(x: 1, y: 151))
    }

    /// The result-dimension limit counts the padding and the aspect-ratio extension, and scales
    /// the whole down: the result stays within it however large the padding.
    @Test func theDimensionLimitScalesPaddingToo() throws {
        let padded = try plan("pd:100", maxResultDimension: 200)
        #expect(padded.resultSize == size(200, 150))
        #expect(padded.scaledSize == size(100, 50) && padded.imageOrigin == PixelPoint(x: 50, y: 50))
        for huge in ["pd:2147483647", "pd:2147483647:0", "pd:0:2147483647:5", "dpr:1e300/el:1/pd:2147483647"] {
            let bounded = try plan(huge, maxResultDimension: 300)
            #expect(max(bounded.resultSize.width, bounded.resultSize.height) <= 300, "\(huge): \(bounded.resultSize)")
            #expect(bounded.scaledSize.width >= 1 && bounded.scaledSize.height >= 1)
        }
        let ratio = try plan("w:300/h:600/exar:1", maxResultDimension: 200)
        #expect(ratio.resultSize == size(100, 200))
    }

    /// Without a dimension limit, a huge padding is refused by the bitmap limit before any memory is taken.
    @Test func aHugePaddingWithoutADimensionLimitIsRefused() throws {
        let limits = JobLimits(maxSourcePixels: 50_000_000, maxResultDimension: 0, maxFrames: 1)
        #expect(throws: ServerError.self) {
            try JobPlan(options: try urlOptions("pd:2147483647"), shownSize: Self.landscape, format: .png,
                        frameCount: nil, limits: limits)
        }
        do {
            _ = try JobPlan(options: try urlOptions("pd:100000"), shownSize: Self.landscape, format: .png,
                            frameCount: nil, limits: limits)
            Issue.record("a 200,200×100,100 canvas was planned")
        } catch let error as ServerError {
            #expect(error.status == 422 && error.message.contains("canvas"))
        }
    }
}
