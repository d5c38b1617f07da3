import Testing
@testable import WebImage
@testable import WebImageCodecs
@testable import WebImageLoading

@Suite("Transform rotate and flip")
struct TransformRotateFlipTests {
    typealias F = TransformFixtures

    @Test func rotationWithoutFitSizeKeepsTheSize() throws {
        let out = try #require(F.apply(RotationTransformer(angle: .pi / 4)))
        #expect(out.pixelSize == PixelSize(width: 300, height: 300))
        // Counter-clockwise: the top band swings to the upper left, the right band to the upper right.
        #expect(out.colourAt(55, 55).looksLike(.black))
        #expect(out.colourAt(245, 55).looksLike(F.halfBlue))
        #expect(out.colourAt(150, 150).a == 0)
        #expect(out.colourAt(0, 0).a == 0)               // uncovered corner
        #expect(out.colourAt(299, 299).a == 0)
    }

    @Test func rotationWithFitSizeGrowsToTheBoundingBox() throws {
        let out = try #require(F.apply(RotationTransformer(angle: .pi / 4, fitSize: true)))
        let expected = Int((300 * 2.0.squareRoot()).rounded(.up))
        #expect(abs(out.width - expected) <= 1 && abs(out.height - expected) <= 1)
        #expect(out.colourAt(out.width / 2, 10).looksLike(F.green))   // the top-right corner now points up
        #expect(out.colourAt(10, out.height / 2).looksLike(F.red))    // the top-left corner points left
        #expect(out.colourAt(0, 0).a == 0)
    }

    @Test func quarterTurnsAreExact() throws {
        let image = Image(bitmap: TestBitmaps.quadrants(width: 64, height: 48))
        let out = try #require(RotationTransformer(angle: .pi / 2, fitSize: true).transformedImage(image, forKey: "k"))
        #expect(out.pixelSize == PixelSize(width: 48, height: 64))
        #expect(out.colourAt(0, 0) == TestBitmaps.green)
        #expect(out.colourAt(47, 0) == TestBitmaps.yellow)
        #expect(out.colourAt(0, 63) == TestBitmaps.red)
        #expect(out.colourAt(47, 63) == TestBitmaps.blue)
        let clockwise = try #require(RotationTransformer(angle: -.pi / 2, fitSize: true).transformedImage(image, forKey: "k"))
        #expect(clockwise.colourAt(0, 0) == TestBitmaps.blue)
        #expect(clockwise.colourAt(47, 63) == TestBitmaps.green)
        #expect(RotationTransformer(angle: .nan).transformedImage(image, forKey: "k") == nil)
    }

    @Test func edgesOfRotatedContentAreAntiAliased() throws {
        let opaque = Image(bitmap: Bitmap(width: 100, height: 100, fill: .white))
        let out = try #require(RotationTransformer(angle: 0.3, fitSize: true).transformedImage(opaque, forKey: "k"))
        let alphas = Set(out.bitmap.pixels.enumerated().filter { $0.offset % 4 == 3 }.map(\.element))
        #expect(alphas.contains(0) && alphas.contains(255))
        #expect(alphas.count > 20)                        // partial coverage along the edges
    }

    @Test func flipBothWaysMovesPixelsToTheOppositeCorner() throws {
        let out = try #require(F.apply(FlippingTransformer(horizontal: true, vertical: true)))
        #expect(out.pixelSize == PixelSize(width: 300, height: 300))
        var block: [RGBA] = []
        for y in 280..<290 { for x in 145..<155 { block.append(out.colourAt(x, y)) } }
        #expect(block.count == 100 && Set(block) == [.black])   // the top band, now at the bottom
        #expect(out.colourAt(150, 285) == .black)
        #expect(out.colourAt(5, 5) == F.yellow)
        #expect(out.colourAt(294, 294) == F.red)
        #expect(out.colourAt(290, 150) == .black)             // left band now on the right
    }

    @Test func flipOneWay() throws {
        let h = try #require(F.apply(FlippingTransformer(horizontal: true, vertical: false)))
        #expect(h.colourAt(5, 5) == F.green && h.colourAt(5, 294) == F.yellow && h.colourAt(150, 5) == .black)
        let v = try #require(F.apply(FlippingTransformer(horizontal: false, vertical: true)))
        #expect(v.colourAt(5, 5) == F.blue && v.colourAt(294, 5) == F.yellow && v.colourAt(150, 294) == .black)
        let none = F.image()
        #expect(FlippingTransformer(horizontal: false, vertical: false).transformedImage(none, forKey: "k") === none)
    }
}
