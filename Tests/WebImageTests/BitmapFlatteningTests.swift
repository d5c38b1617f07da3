import Testing
@testable import WebImageCodecs

/// Compositing straight-alpha pixels over an opaque background, the step JPEG results and `bg`
/// share.
@Suite("Bitmap flattening")
struct BitmapFlatteningTests {
    @Test func eachPixelIsBlendedByItsAlphaAndMadeOpaque() {
        let pixels: [UInt8] = [255, 0, 0, 255,   0, 255, 0, 128,   10, 20, 30, 0,   200, 100, 50, 1]
        let flat = Bitmap(width: 4, height: 1, pixels: pixels).flattened(over: RGBA(r: 0, g: 0, b: 255))
        #expect(flat.pixels == [255, 0, 0, 255,   0, 128, 127, 255,   0, 0, 255, 255,   1, 0, 254, 255])
        #expect(!flat.hasAlpha)
        // The background's own alpha is ignored: it counts as opaque.
        let overClear = Bitmap(width: 4, height: 1, pixels: pixels).flattened(over: RGBA(r: 0, g: 0, b: 255, a: 0))
        #expect(overClear == flat)
    }

    @Test func anOpaqueBitmapIsReturnedAsItIs() {
        let opaque = Bitmap(width: 3, height: 2, fill: RGBA(r: 9, g: 8, b: 7))
        #expect(opaque.flattened(over: RGBA(r: 255, g: 255, b: 255)) == opaque)
    }

    @Test func aColourFlattensAsAPixelDoes() {
        let colour = RGBA(r: 0, g: 255, b: 0, a: 128)
        #expect(colour.flattened(over: RGBA(r: 0, g: 0, b: 255)) == RGBA(r: 0, g: 128, b: 127))
        #expect(RGBA(r: 1, g: 2, b: 3, a: 0).flattened(over: RGBA(r: 255, g: 255, b: 255)) == RGBA(r: 255, g: 255, b: 255))
    }
}
