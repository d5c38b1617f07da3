import Testing
@testable import WebImage
@testable import WebImageServer

/// Drawing for the trim tests: a canvas of one colour with filled rectangles on it.
enum TrimCanvas {
    static let white = RGBA(r: 255, g: 255, b: 255)
    static let red = RGBA(r: 255, g: 0, b: 0)

    /// A `width`×`height` bitmap of `fill` with each rectangle painted in its colour, in order.
    static func bitmap(width: Int, height: Int, fill: RGBA = white, _ rects: [(PixelRect, RGBA)]) -> Bitmap {
        var pixels = [UInt8](repeating: 0, count: width * height * 4)
        for y in 0..<height {
            for x in 0..<width {
                var color = fill
                for (rect, paint) in rects where (rect.x..<rect.x + rect.width).contains(x)
                    && (rect.y..<rect.y + rect.height).contains(y) {
                    color = paint
                }
                let index = (y * width + x) * 4
                pixels[index] = color.r
                pixels[index + 1] = color.g
                pixels[index + 2] = color.b
                pixels[index + 3] = color.a
            }
        }
        return Bitmap(width: width, height: height, pixels: pixels)
    }
}

@Suite("BorderTrim: libvips find_trim's rectangle")
struct BorderTrimTests {
    private func rect(_ bitmap: Bitmap, threshold: Double = 10, color: RGBA? = nil, hor: Bool = false,
                      ver: Bool = false) throws -> PixelRect {
        try BorderTrim.rect(in: bitmap, threshold: threshold, color: color, equalHorizontal: hor, equalVertical: ver)
    }

    @Test func theContentsBoundingBoxIsKept() throws {
        let bitmap = TrimCanvas.bitmap(width: 20, height: 12, [(PixelRect(x: 5, y: 2, width: 4, height: 3), TrimCanvas.red)])
        #expect(try rect(bitmap) == PixelRect(x: 5, y: 2, width: 4, height: 3))
        // Equal margins: the smaller of left (5) and right (11), of top (2) and bottom (7).
        #expect(try rect(bitmap, hor: true) == PixelRect(x: 5, y: 2, width: 10, height: 3))
        #expect(try rect(bitmap, ver: true) == PixelRect(x: 5, y: 2, width: 4, height: 8))
        #expect(try rect(bitmap, hor: true, ver: true) == PixelRect(x: 5, y: 2, width: 10, height: 8))
    }

    /// Content touching an edge leaves that side; content everywhere leaves the whole image.
    @Test func contentAtTheEdges() throws {
        let corner = TrimCanvas.bitmap(width: 10, height: 10, [(PixelRect(x: 6, y: 0, width: 4, height: 5), TrimCanvas.red)])
        #expect(try rect(corner, color: TrimCanvas.white) == PixelRect(x: 6, y: 0, width: 4, height: 5))
        // Without a colour, the top-left pixel's (white); with red, white is content everywhere.
        #expect(try rect(corner) == PixelRect(x: 6, y: 0, width: 4, height: 5))
        #expect(try rect(corner, color: TrimCanvas.red) == PixelRect(x: 0, y: 0, width: 10, height: 10))
    }

    /// An image that is all border (within the threshold) is kept whole, as libvips reports
    /// no content and imgproxy then leaves the image as it is.
    @Test func anAllBorderImageIsKeptWhole() throws {
        let plain = TrimCanvas.bitmap(width: 9, height: 7, [(PixelRect(x: 3, y: 3, width: 3, height: 3), RGBA(r: 250, g: 250, b: 250))])
        #expect(try rect(plain) == PixelRect(x: 0, y: 0, width: 9, height: 7))
        #expect(try rect(plain, threshold: 4) == PixelRect(x: 3, y: 3, width: 3, height: 3))
        #expect(try rect(plain, threshold: 5) == PixelRect(x: 0, y: 0, width: 9, height: 7))
        #expect(try rect(Bitmap(width: 1, height: 1, fill: TrimCanvas.red)) == PixelRect(x: 0, y: 0, width: 1, height: 1))
    }

    /// The 3×3 median libvips smooths with: a lone pixel or a one-pixel line is not content.
    @Test func lonePixelsAreSmoothedAway() throws {
        let noisy = TrimCanvas.bitmap(width: 12, height: 12, [
            (PixelRect(x: 1, y: 1, width: 1, height: 1), TrimCanvas.red),
            (PixelRect(x: 10, y: 2, width: 1, height: 8), TrimCanvas.red),
            (PixelRect(x: 4, y: 4, width: 3, height: 3), TrimCanvas.red),
        ])
        #expect(try rect(noisy) == PixelRect(x: 4, y: 4, width: 3, height: 3))
    }

    /// Transparency is compared flattened over magenta: a transparent border of any colour is
    /// one border, and the colour to compare with can be magenta itself.
    @Test func transparencyIsFlattenedOverMagenta() throws {
        let clearBorder = TrimCanvas.bitmap(width: 10, height: 10, fill: RGBA(r: 0, g: 0, b: 0, a: 0),
                                            [(PixelRect(x: 2, y: 3, width: 4, height: 4), TrimCanvas.red)])
        #expect(try rect(clearBorder) == PixelRect(x: 2, y: 3, width: 4, height: 4))
        #expect(try rect(clearBorder, color: RGBA(r: 255, g: 0, b: 255)) == PixelRect(x: 2, y: 3, width: 4, height: 4))
    }
}
