import Testing
@testable import WebImage
@testable import WebImageServer

@Suite("Resize plan: imgproxy's geometry")
struct ResizePlanTests {
    static let landscape = PixelSize(width: 200, height: 100)

    /// The plan for imgproxy options written as in a URL (`rs:fill:50:50/g:no`), via the URL parser.
    func plan(_ options: String, source: PixelSize = landscape) throws -> ResizePlan {
        ResizePlan(options: try urlOptions(options), sourceSize: source)
    }

    func size(_ width: Int, _ height: Int) -> PixelSize { PixelSize(width: width, height: height) }

    // MARK: imgproxy's table (processing_test.go), source 200×100

    @Test(arguments: [
        ("rs:fit:50:50", 50, 25), ("rs:fit:50:20", 40, 20), ("rs:fit:300:300", 200, 100),
        ("rs:fit:0:50", 100, 50), ("rs:fit:300:0", 200, 100),
        ("rs:fill:50:50", 50, 50), ("rs:fill:50:20", 50, 20), ("rs:fill:300:300", 200, 100),
        ("rs:fill:0:50", 100, 50), ("rs:fill:300:0", 200, 100),
        ("rs:fill-down:50:50", 50, 50), ("rs:fill-down:50:20", 50, 20), ("rs:fill-down:300:300", 100, 100),
        ("rs:fill-down:300:125", 200, 83), ("rs:fill-down:0:50", 100, 50), ("rs:fill-down:300:0", 200, 100),
        ("rs:fit:50:50:1", 50, 25), ("rs:fit:50:20:1", 40, 20), ("rs:fit:300:300:1", 300, 150),
        ("rs:fit:300:125:1", 250, 125), ("rs:fit:0:50:1", 100, 50), ("rs:fit:300:0:1", 300, 150),
        ("rs:fit:50:50:0:1", 50, 50), ("rs:fit:50:20:0:1", 50, 20), ("rs:fit:300:300:0:1", 300, 300),
        ("rs:fit:300:125:0:1", 300, 125), ("rs:fit:0:50:0:1", 100, 50), ("rs:fit:300:0:0:1", 300, 100),
    ])
    func imgproxyTable(options: String, width: Int, height: Int) throws {
        #expect(try plan(options).resultSize == size(width, height))
    }

    @Test func tableStepsInDetail() throws {
        // fill: resize to cover, then crop the excess at the centre.
        let fill = try plan("rs:fill:50:50")
        #expect(fill.sourceCrop == nil && fill.scaledSize == size(100, 50) && fill.canvas == nil)
        #expect(fill.resultCrop == PixelRect(x: 26, y: 0, width: 50, height: 50))
        // fill with a source too small: no crop, no padding.
        let small = try plan("rs:fill:300:300")
        #expect(small.scaledSize == Self.landscape && small.resultCrop == nil && small.canvas == nil)
        // fill-down: the largest area of the target's shape.
        let down = try plan("rs:fill-down:300:125")
        #expect(down.scaledSize == Self.landscape)
        #expect(down.resultCrop == PixelRect(x: 0, y: 9, width: 200, height: 83))
        // fit never crops; extend pads around the centre.
        let extended = try plan("rs:fit:300:300:0:1")
        #expect(extended.scaledSize == Self.landscape && extended.resultCrop == nil)
        #expect(extended.canvas == size(300, 300) && extended.imageOrigin == PixelPoint(x: 50, y: 100))
        #expect(extended.targetSize == size(300, 300))
        let fit = try plan("rs:fit:50:50")
        #expect(fit.resultCrop == nil && fit.canvas == nil && fit.imageOrigin == .zero && fit.targetSize == size(50, 50))
    }

    @Test func noTargetKeepsTheSource() throws {
        let plan = try plan("q:80")
        #expect(plan.scaledSize == Self.landscape && plan.resultSize == Self.landscape)
        #expect(plan.sourceCrop == nil && plan.resultCrop == nil && plan.canvas == nil && plan.targetSize == .zero)
    }

    // MARK: gravity

    /// A 50×20 crop of the 200×100 source placed by each gravity (offset scale 1).
    @Test(arguments: [
        ("ce", 76, 40), ("no", 76, 0), ("so", 76, 80), ("ea", 150, 40), ("we", 0, 40),
        ("noea", 150, 0), ("nowe", 0, 0), ("soea", 150, 80), ("sowe", 0, 80), ("sm", 76, 40),
        ("no:10:5", 86, 5), ("so:10:5", 86, 75), ("ea:10:5", 140, 45), ("we:10:5", 10, 45),
        ("soea:10:5", 140, 75), ("ce:-6:-4", 70, 36),
        ("we:0.1:0", 20, 40), ("no:0:0.25", 76, 25), ("ea:0.5:0", 50, 40),
        ("ce:1000:0", 150, 40), ("ce:-1000:-1000", 0, 0), ("nowe:-5:-5", 0, 0),
        ("fp:0.25:0.5", 25, 40), ("fp:0:0", 0, 0), ("fp:1:1", 150, 80), ("fp:0.5:0.5", 75, 40),
    ])
    func gravityPlacements(gravity: String, x: Int, y: Int) throws {
        let viaCrop = try plan("c:50:20:\(gravity)")
        #expect(viaCrop.sourceCrop == PixelRect(x: x, y: y, width: 50, height: 20))
        // Without its own gravity, the crop takes the request's.
        let viaRequest = try plan("g:\(gravity)/c:50:20")
        #expect(viaRequest.sourceCrop == viaCrop.sourceCrop)
    }

    @Test func fillGravityAndOffsetsScaledByDpr() throws {
        let wide = size(400, 100)
        #expect(try plan("rs:fill:100:100", source: wide).resultCrop == PixelRect(x: 150, y: 0, width: 100, height: 100))
        #expect(try plan("rs:fill:100:100/g:we:10", source: wide).resultCrop?.origin == PixelPoint(x: 10, y: 0))
        #expect(try plan("rs:fill:100:100/g:ea", source: wide).resultCrop?.origin == PixelPoint(x: 300, y: 0))
        #expect(try plan("rs:fill:100:100/g:fp:0.75:0.5", source: wide).resultCrop?.origin == PixelPoint(x: 250, y: 0))
        // dpr 2 with enlarge: everything doubles, pixel offsets included.
        let doubled = try plan("rs:fill:100:100:1/dpr:2/g:we:10", source: wide)
        #expect(doubled.scaledSize == size(800, 200) && doubled.targetSize == size(200, 200))
        #expect(doubled.resultCrop == PixelRect(x: 20, y: 0, width: 200, height: 200))
        // Fractional offsets are fractions of the scaled image, not scaled by dpr.
        #expect(try plan("rs:fill:100:100:1/dpr:2/g:we:0.25", source: wide).resultCrop?.origin == PixelPoint(x: 200, y: 0))
    }

    @Test func extendGravity() throws {
        #expect(try plan("rs:fit:300:300:0:1:no").imageOrigin == PixelPoint(x: 50, y: 0))
        #expect(try plan("rs:fit:300:300:0:1:soea").imageOrigin == PixelPoint(x: 100, y: 200))
        #expect(try plan("rs:fit:300:300:0:1:we:10:0").imageOrigin == PixelPoint(x: 10, y: 100))
        #expect(try plan("rs:fit:300:300:0:1:fp:0:0").imageOrigin == PixelPoint(x: 0, y: 0))
        // A 0 side of the target extends to the image's side.
        let wide = try plan("rs:fit:300:0:0:1")
        #expect(wide.canvas == size(300, 100) && wide.imageOrigin == PixelPoint(x: 50, y: 0))
        // Nothing to pad: no canvas.
        #expect(try plan("rs:fill:50:50:0:1").canvas == nil)
    }

    // MARK: crop

    @Test func cropInPixelsAndFractions() throws {
        let pixels = try plan("c:100:50/rs:fit:50:50")
        #expect(pixels.sourceCrop == PixelRect(x: 50, y: 26, width: 100, height: 50))
        #expect(pixels.scaledSize == size(50, 25))
        let fractions = try plan("c:0.5:0.25")
        #expect(fractions.sourceCrop == PixelRect(x: 50, y: 38, width: 100, height: 25))
        #expect(fractions.scaledSize == size(100, 25))
        // 0 keeps a whole side; a pixel size is truncated.
        #expect(try plan("c:0.5").sourceCrop == PixelRect(x: 50, y: 0, width: 100, height: 100))
        #expect(try plan("c:0:30.9:no").sourceCrop == PixelRect(x: 0, y: 0, width: 200, height: 30))
        // Larger than the image: clamped to it.
        #expect(try plan("c:500:50").sourceCrop == PixelRect(x: 0, y: 26, width: 200, height: 50))
        #expect(try plan("c:500:500").sourceCrop == nil)
        // A tiny fraction keeps at least one pixel.
        #expect(try plan("c:0.001:0.001").sourceCrop?.size == size(1, 1))
    }

    @Test func cropThenFillUsesTheCroppedSize() throws {
        let plan = try plan("c:100:100:nowe/rs:fill:50:25")
        #expect(plan.sourceCrop == PixelRect(x: 0, y: 0, width: 100, height: 100))
        #expect(plan.scaledSize == size(50, 50))
        #expect(plan.resultCrop == PixelRect(x: 0, y: 13, width: 50, height: 25))
        #expect(plan.resultSize == size(50, 25))
    }

    // MARK: dpr, zoom, enlarge

    @Test func dprWithoutEnlarge() throws {
        let half = try plan("rs:fit:50:50/dpr:2")
        #expect(half.scaledSize == size(100, 50) && half.targetSize == size(100, 100) && half.dprScale == 2)
        // Capped where the source runs out of pixels.
        let capped = try plan("rs:fit:150:150/dpr:2")
        #expect(capped.scaledSize == Self.landscape)
        #expect(abs(capped.dprScale - 4.0 / 3.0) < 1e-12)
        #expect(capped.targetSize == size(200, 200))
        let full = try plan("rs:fit:300:300/dpr:3")
        #expect(full.scaledSize == Self.landscape && full.dprScale == 1)
    }

    @Test func dprWithEnlarge() throws {
        let plan = try plan("rs:fit:150:150:1/dpr:2")
        #expect(plan.scaledSize == size(300, 150) && plan.targetSize == size(300, 300) && plan.dprScale == 2)
    }

    @Test func dprBelowOneOnASmallSource() throws {
        // The source cannot reach 300×300, so it is kept whole and the dpr is compensated (0.5 ÷ ⅔)…
        let plan = try plan("rs:fit:300:300/dpr:0.5")
        #expect(plan.scaledSize == size(150, 75) && plan.dprScale == 0.75 && plan.targetSize == size(225, 225))
        // …except when extending, which keeps the composition at every dpr.
        let extended = try self.plan("rs:fit:300:300:0:1/dpr:0.5")
        #expect(extended.scaledSize == size(100, 50) && extended.canvas == size(150, 150))
        #expect(extended.imageOrigin == PixelPoint(x: 26, y: 50))
    }

    @Test func zoom() throws {
        let zoomed = try plan("rs:fit:50:50/z:2")
        #expect(zoomed.scaledSize == size(100, 50) && zoomed.targetSize == size(100, 100))
        // Zooming in never enlarges without el.
        #expect(try plan("z:3").scaledSize == Self.landscape)
        #expect(try plan("z:3/el:1").scaledSize == size(600, 300))
        #expect(try plan("z:0.5:0.25").scaledSize == size(100, 25))
    }

    @Test func enlarge() throws {
        #expect(try plan("rs:fill:400:400").resultSize == Self.landscape)
        let enlarged = try plan("rs:fill:400:400:1")
        #expect(enlarged.scaledSize == size(800, 400))
        #expect(enlarged.resultCrop == PixelRect(x: 200, y: 0, width: 400, height: 400))
    }

    // MARK: resizing types

    @Test func autoChoosesFillOrFit() throws {
        // Landscape source, landscape (or square) target: fill.
        #expect(try plan("rs:auto:50:50").resultSize == size(50, 50))
        #expect(try plan("rs:auto:50:40").resultSize == size(50, 40))
        // Portrait target: fit.
        #expect(try plan("rs:auto:50:100").resultSize == size(50, 25))
        let portrait = size(100, 200)
        #expect(try plan("rs:auto:50:100", source: portrait).resultSize == size(50, 100))
        #expect(try plan("rs:auto:50:90", source: portrait).resultSize == size(50, 90))
        #expect(try plan("rs:auto:100:50", source: portrait).resultSize == size(25, 50))
        // A square source counts as landscape.
        #expect(try plan("rs:auto:100:50", source: size(100, 100)).resultSize == size(100, 50))
        #expect(try plan("rs:auto:50:100", source: size(100, 100)).resultSize == size(50, 50))
    }

    @Test func force() throws {
        #expect(try plan("rs:force:50:50").resultSize == size(50, 50))
        let stretched = try plan("rs:force:50:50")
        #expect(stretched.scaledSize == size(50, 50) && stretched.resultCrop == nil)
        // A 0 side keeps the source's.
        #expect(try plan("rs:force:50:0").resultSize == size(50, 100))
        #expect(try plan("rs:force:0:20").resultSize == size(200, 20))
        #expect(try plan("rs:force:0:0").resultSize == Self.landscape)
        // Without el, force still never enlarges.
        #expect(try plan("rs:force:400:50").resultSize == size(200, 25))
        #expect(try plan("rs:force:400:50:1").resultSize == size(400, 50))
    }

    @Test func minimumSizes() throws {
        let width = try plan("rs:fit:50:50/mw:100")
        #expect(width.scaledSize == size(100, 50))
        #expect(width.resultCrop == PixelRect(x: 26, y: 0, width: 50, height: 50))
        // Alone, a minimum enlarges even without el.
        #expect(try plan("mw:400").resultSize == size(400, 200))
        #expect(try plan("mh:300").resultSize == size(600, 300))
        #expect(try plan("rs:fit:50:50/mh:40").resultSize == size(50, 40))
        // Already reached: no effect.
        #expect(try plan("rs:fit:100:100/mw:50") == (try plan("rs:fit:100:100")))
    }

    // MARK: extremes

    @Test func neverBelowOnePixel() throws {
        let dot = size(1, 1)
        for options in ["rs:fit:100:100", "rs:fill:100:100", "rs:fill-down:100:100", "rs:force:100:100", "rs:auto:3:1",
                        "rs:fit:1:1", "c:0.1:0.1", "rs:fit:100:100:0:1"] {
            let plan = try plan(options, source: dot)
            #expect(plan.scaledSize == dot, "\(options)")
            #expect(plan.resultSize.width >= 1 && plan.resultSize.height >= 1, "\(options)")
        }
        #expect(try plan("rs:fill:100:100:1", source: dot).resultSize == size(100, 100))
        #expect(try plan("rs:fit:100:100", source: size(10000, 1)).resultSize == size(100, 1))
        #expect(try plan("rs:fit:100:100", source: size(1, 10000)).resultSize == size(1, 100))
        #expect(try plan("rs:fill:100:100", source: size(10000, 1)).resultSize == size(100, 1))
        #expect(try plan("rs:fill:100:100", source: size(1, 10000)).resultSize == size(1, 100))
        #expect(try plan("rs:fit:1:1", source: size(10000, 3)).resultSize == size(1, 1))
        #expect(try plan("rs:force:1:1", source: size(10000, 3)).resultSize == size(1, 1))
        // Zoomed far out: the height stops at one pixel, the width keeps the aspect ratio (10000 ÷ 3000).
        #expect(try plan("rs:fit:0:1/z:0.001", source: size(10000, 3)).scaledSize == size(3, 1))
    }

    @Test func degenerateInputsDoNotTrap() {
        var options = ProcessingOptions()
        options.width = .max
        options.height = -5
        options.enlarge = true
        options.dpr = .infinity
        options.zoomX = .nan
        options.zoomY = 1e300
        options.minWidth = .max
        options.crop = .init(width: .infinity, height: -3, gravity: .init(.center, x: .nan, y: 1e300))
        options.extend.enabled = true
        for source in [PixelSize.zero, PixelSize(width: -4, height: 7), PixelSize(width: .max, height: .max)] {
            let plan = ResizePlan(options: options, sourceSize: source)
            #expect(plan.scaledSize.width >= 1 && plan.scaledSize.height >= 1)
            #expect(plan.resultSize.width <= Int(Int32.max) && plan.resultSize.height <= Int(Int32.max))
        }
        #expect(ResizePlan(options: ProcessingOptions(), sourceSize: .zero).resultSize == PixelSize(width: 1, height: 1))
    }
}
