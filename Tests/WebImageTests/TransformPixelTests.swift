import Testing
@testable import WebImage
@testable import WebImageCodecs
@testable import WebImageLoading

@Suite("Transform round corner, tint and blur")
struct TransformPixelTests {
    typealias F = TransformFixtures

    @Test func roundCornerClearsTheCornersAndDrawsTheBorder() throws {
        let out = try #require(F.apply(RoundCornerTransformer(cornerRadius: 50, corners: .all, borderWidth: 1,
                                                              borderColor: .black)))
        #expect(out.pixelSize == PixelSize(width: 300, height: 300))
        #expect(out.colourAt(0, 0).a == 0)                  // the red corner is cut away
        #expect(out.colourAt(5, 5).a == 0)
        #expect(out.colourAt(29, 29) == F.red)              // inside the arc the picture remains
        #expect(out.colourAt(299, 299).a == 0)
        #expect(out.colourAt(150, 0) == .black)             // top-centre: border over black, not flipped
        #expect(out.colourAt(0, 150) == .black)             // the border
        #expect(out.colourAt(150, 299) == .black)           // border drawn over the white band
        #expect(out.colourAt(150, 298) == .white)
        #expect(out.colourAt(150, 150) == .clear)
    }

    @Test func borderIsInPointsAndEdgesAreAntiAliased() throws {
        // At scale 2 a 1-point border is 2 pixels wide, so (1, 150) is border, (3, 150) picture.
        let out = try #require(F.apply(RoundCornerTransformer(cornerRadius: 25, borderWidth: 1, borderColor: F.magenta),
                                       to: F.image(scale: 2)))
        #expect(out.colourAt(1, 150) == F.magenta)
        #expect(out.colourAt(0, 150) == F.magenta)
        #expect(out.colourAt(150, 1) == F.magenta)
        #expect(out.colourAt(3, 150) == .black)
        #expect(out.colourAt(298, 150) == F.magenta)        // over the half-transparent band: opaque border
        // Along the arc some pixels are partly covered.
        let arc = (0..<50).map { out.colourAt($0, 50 - $0 / 2).a }
        #expect(arc.contains { $0 > 0 && $0 < 255 })
    }

    @Test func onlyTheChosenCornersAreRounded() throws {
        let out = try #require(F.apply(RoundCornerTransformer(cornerRadius: 50, corners: [.topLeft, .bottomRight])))
        #expect(out.colourAt(0, 0).a == 0 && out.colourAt(299, 299).a == 0)
        #expect(out.colourAt(299, 0) == F.green && out.colourAt(0, 299) == F.blue)
        #expect(out.colourAt(0, 150) == .black)              // no border: the picture reaches the edge
    }

    @Test func blackTintKeepsClearAndColoursTheRest() throws {
        let out = try #require(F.apply(TintTransformer(color: .black)))
        #expect(out.colourAt(150, 150) == .clear)           // the clear centre stays clear
        #expect(out.colourAt(10, 150) == .black)            // opaque left area: the tint colour
        #expect(out.colourAt(150, 285) == .black)           // white band becomes black
        #expect(out.colourAt(5, 5) == .black)               // red corner becomes black
        #expect(out.colourAt(280, 150) == RGBA(r: 0, g: 0, b: 0, a: 128))   // alpha kept
    }

    @Test func colourTintReplacesColourNotAlpha() throws {
        let out = try #require(F.apply(TintTransformer(color: F.red)))
        #expect(out.colourAt(10, 150) == F.red && out.colourAt(150, 285) == F.red && out.colourAt(294, 5) == F.red)
        #expect(out.colourAt(280, 150) == RGBA(r: 255, g: 0, b: 0, a: 128))
        #expect(out.colourAt(150, 150) == .clear)
        let halfRed = try #require(F.apply(TintTransformer(color: RGBA(r: 255, g: 0, b: 0, a: 128))))
        #expect(halfRed.colourAt(10, 150) == RGBA(r: 255, g: 0, b: 0, a: 128))
    }

    @Test func otherBlendModesComposite() throws {
        let halfRed = RGBA(r: 255, g: 0, b: 0, a: 128)
        let over = try #require(F.apply(TintTransformer(color: halfRed, blendMode: .normal)))
        #expect(over.colourAt(150, 285).looksLike(RGBA(r: 255, g: 127, b: 127), tolerance: 2))   // over white
        #expect(over.colourAt(150, 150) == halfRed)                                            // over clear
        let atop = try #require(F.apply(TintTransformer(color: halfRed, blendMode: .sourceAtop)))
        #expect(atop.colourAt(150, 150) == .clear)
        #expect(atop.colourAt(150, 285).looksLike(RGBA(r: 255, g: 127, b: 127), tolerance: 2))
        let multiply = try #require(F.apply(TintTransformer(color: F.red, blendMode: .multiply)))
        #expect(multiply.colourAt(150, 285) == F.red)        // white × red
        #expect(multiply.colourAt(10, 150) == .black)        // black × red
        #expect(multiply.colourAt(5, 294) == .black)         // blue × red
    }

    @Test func blurKeepsSizeAndSmoothsEdges() throws {
        let out = try #require(F.apply(BlurTransformer(radius: 25)))
        #expect(out.pixelSize == PixelSize(width: 300, height: 300))
        let edge = out.colourAt(40, 150)                     // the left band's sharp edge
        #expect(edge.a > 20 && edge.a < 235)
        #expect(out.colourAt(2, 150).a > out.colourAt(40, 150).a)
        #expect(out.colourAt(60, 150).a < out.colourAt(40, 150).a)
        #expect(out.colourAt(60, 150).a > 0)
        #expect(out.colourAt(150, 0) != out.colourAt(150, 299))  // top (black) differs from bottom (white)
        #expect(out.colourAt(150, 299).r > 200)
        #expect(out.colourAt(150, 0).r < 50)
    }

    @Test func blurOfUniformColourIsUnchangedAndZeroRadiusIsANoOp() throws {
        let flat = Image(bitmap: Bitmap(width: 40, height: 30, fill: RGBA(r: 10, g: 200, b: 90, a: 200)))
        let out = try #require(BlurTransformer(radius: 8).transformedImage(flat, forKey: "k"))
        #expect(out.bitmap == flat.bitmap)
        #expect(BlurTransformer(radius: 0).transformedImage(flat, forKey: "k") === flat)
        let huge = try #require(BlurTransformer(radius: 1e9).transformedImage(F.image(), forKey: "k"))
        #expect(huge.pixelSize == PixelSize(width: 300, height: 300))
    }
}
