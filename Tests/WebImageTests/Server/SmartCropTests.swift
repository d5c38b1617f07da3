import Testing
@testable import WebImage
@testable import WebImageServer

/// Smart gravity's choice of window, on bitmaps made here: what stands out from a plain
/// background is kept, a plain image is cut in the middle, transparent detail counts for nothing.
@Suite("Smart crop")
struct SmartCropTests {
    /// A `width` × `height` image of `background` with a striped square of `side` at (`x`, `y`).
    static func scene(width: Int, height: Int, background: RGBA, object: (x: Int, y: Int, side: Int)?,
                      objectAlpha: UInt8 = 255) -> Bitmap {
        Bitmap(width: width, height: height) { out in
            for y in 0..<height {
                for x in 0..<width {
                    let i = (y * width + x) * 4
                    var p = background
                    if let o = object, x >= o.x, x < o.x + o.side, y >= o.y, y < o.y + o.side {
                        p = (x / 4 + y / 4) % 2 == 0 ? RGBA(r: 230, g: 40, b: 30, a: objectAlpha)
                                                     : RGBA(r: 20, g: 20, b: 120, a: objectAlpha)
                    }
                    out[i] = p.r; out[i + 1] = p.g; out[i + 2] = p.b; out[i + 3] = p.a
                }
            }
        }
    }

    static func contains(_ rect: PixelRect, _ o: (x: Int, y: Int, side: Int)) -> Bool {
        rect.x <= o.x && rect.y <= o.y && rect.x + rect.width >= o.x + o.side && rect.y + rect.height >= o.y + o.side
    }

    @Test(arguments: [(x: 330, y: 80, side: 50), (x: 10, y: 20, side: 40), (x: 200, y: 240, side: 50)])
    func anObjectOnAPlainBackgroundIsInTheWindow(object: (x: Int, y: Int, side: Int)) {
        let bitmap = Self.scene(width: 400, height: 300, background: RGBA(r: 240, g: 240, b: 235, a: 255), object: object)
        let window = SmartCrop.window(in: bitmap, size: PixelSize(width: 150, height: 150))
        #expect(window.width == 150 && window.height == 150)
        #expect(Self.contains(window, object), "\(window) misses \(object)")
    }

    @Test func aPlainImageIsCutInTheMiddle() {
        for colour in [RGBA(r: 255, g: 255, b: 255, a: 255), RGBA(r: 200, g: 30, b: 30, a: 255)] {
            let bitmap = Self.scene(width: 300, height: 200, background: colour, object: nil)
            #expect(SmartCrop.window(in: bitmap, size: PixelSize(width: 100, height: 200))
                == PixelRect(x: 100, y: 0, width: 100, height: 200))
        }
    }

    @Test func transparentDetailDoesNotDrawTheWindow() {
        // Loud stripes, fully transparent, on the left; a faint square, opaque, on the right.
        let hidden = (x: 20, y: 50, side: 60), faint = (x: 300, y: 60, side: 40)
        let stripes = Self.scene(width: 400, height: 200, background: RGBA(r: 0, g: 0, b: 0, a: 0),
                                 object: hidden, objectAlpha: 0)
        let bitmap = Bitmap(width: 400, height: 200) { out in
            let source = stripes.pixels
            for i in 0..<out.count { out[i] = source[i] }
            for y in faint.y..<(faint.y + faint.side) {
                for x in faint.x..<(faint.x + faint.side) {
                    let i = (y * 400 + x) * 4
                    out[i] = 90; out[i + 1] = 90; out[i + 2] = 90; out[i + 3] = 255
                }
            }
        }
        let window = SmartCrop.window(in: bitmap, size: PixelSize(width: 120, height: 200))
        #expect(Self.contains(window, faint), "\(window)")
    }

    @Test func skinTonesScoreAndOtherColoursDoNot() {
        #expect(SaliencyMap.skinLikelihood(r: 224, g: 172, b: 140) > 0.5)
        #expect(SaliencyMap.skinLikelihood(r: 141, g: 85, b: 60) > 0.4)
        #expect(SaliencyMap.skinLikelihood(r: 40, g: 200, b: 60) == 0)
        #expect(SaliencyMap.skinLikelihood(r: 60, g: 60, b: 220) == 0)
        #expect(SaliencyMap.skinLikelihood(r: 128, g: 128, b: 128) < 0.1)
        #expect(SaliencyMap.skinLikelihood(r: 230, g: 40, b: 30) == 0)
    }

    @Test func aWindowAsLargeAsTheImageIsTheImage() {
        let bitmap = Self.scene(width: 50, height: 40, background: RGBA(r: 9, g: 9, b: 9, a: 255), object: (5, 5, 10))
        #expect(SmartCrop.window(in: bitmap, size: PixelSize(width: 50, height: 40)) == PixelRect(x: 0, y: 0, width: 50, height: 40))
        #expect(SmartCrop.window(in: bitmap, size: PixelSize(width: 80, height: 90)) == PixelRect(x: 0, y: 0, width: 50, height: 40))
    }
}
