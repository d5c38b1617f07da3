import Testing
@testable import WebImageCodecs

/// Borrowed, padded pixel rows (a decoder's own buffer) read in place: the padding is never
/// read as pixels, and resampling them gives the bytes resampling the same pixels as a bitmap
/// gives.
@Suite("Pixel rows read in place")
struct PixelRowsTests {
    /// `bitmap`'s rows, each followed by `padding` bytes of `fill`.
    static func padded(_ bitmap: Bitmap, padding: Int, fill: UInt8) -> [UInt8] {
        let rowBytes = bitmap.width * 4
        var bytes: [UInt8] = []
        bitmap.withUnsafeBytes { pixels in
            for y in 0..<bitmap.height {
                bytes += pixels[(y * rowBytes)..<((y + 1) * rowBytes)]
                bytes += [UInt8](repeating: fill, count: padding)
            }
        }
        return bytes
    }

    @Test(arguments: [
        (PixelSize(width: 320, height: 240), PixelSize(width: 256, height: 192)),
        (PixelSize(width: 97, height: 61), PixelSize(width: 40, height: 23)),
        (PixelSize(width: 20, height: 13), PixelSize(width: 47, height: 31)),
    ])
    func paddedRowsResampleAsTheBitmap(source: PixelSize, target: PixelSize) {
        for alpha in [false, true] {
            let bitmap = ResamplerReferenceTests.noiseBitmap(width: source.width, height: source.height, alpha: alpha, seed: 7)
            // Transparent padding: read as pixels, it would make an opaque image look transparent.
            let bytes = Self.padded(bitmap, padding: 12, fill: 0)
            let rows = bytes.withUnsafeBufferPointer { buffer in
                let rows = PixelRows(base: buffer.baseAddress!, width: source.width, height: source.height,
                                     bytesPerRow: source.width * 4 + 12)
                return (alpha: rows.hasAlpha, resized: Resampler.resize(rows, to: target))
            }
            #expect(rows.alpha == alpha)
            #expect(rows.resized == Resampler.resize(bitmap, to: target), "\(source) → \(target), alpha \(alpha)")
        }
    }

    @Test func oneTranslucentPixelAnywhereIsAlpha() {
        for (width, height) in [(1, 1), (3, 5), (300, 2), (600, 3)] {
            let opaque = Bitmap(width: width, height: height, fill: RGBA(r: 1, g: 2, b: 3, a: 255))
            #expect(!opaque.hasAlpha)
            for index in [0, width * height / 2, width * height - 1] {
                var pixels = opaque.pixels
                pixels[index * 4 + 3] = 254
                #expect(Bitmap(width: width, height: height, pixels: pixels).hasAlpha, "\(width)x\(height), pixel \(index)")
            }
        }
    }
}
