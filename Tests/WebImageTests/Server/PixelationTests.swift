import Testing
@testable import WebImage
@testable import WebImageServer

@Suite("Pixelation: imgproxy's block means")
struct PixelationTests {
    /// A one-row bitmap of grey levels.
    private func row(_ levels: [UInt8]) -> Bitmap {
        Bitmap(width: levels.count, height: 1, pixels: levels.flatMap { [$0, $0, $0, 255] })
    }

    private func levels(_ bitmap: Bitmap) -> [UInt8] {
        (0..<bitmap.width).map { bitmap.pixel(x: $0, y: 0).r }
    }

    @Test func blocksStartTopLeftAndTheLastIsMirrored() {
        // Blocks of 2 over 0, 100, 60: the last block reads 60 and its mirror, 60.
        #expect(levels(Pixelation.pixelate(row([0, 100, 60]), size: 2)) == [50, 50, 60])
        // Blocks of 3 over five pixels: the last reads 40, 80 and 80 (mirrored at the edge).
        #expect(levels(Pixelation.pixelate(row([0, 30, 60, 40, 80]), size: 3)) == [30, 30, 30, 67, 67])
    }

    @Test func coloursCountByTheirCoverage() {
        // Opaque red beside transparent blue: the block is red at half coverage; the invisible
        // blue adds nothing (straight averaging would make it a dark purple).
        let bitmap = Bitmap(width: 2, height: 1, pixels: [255, 0, 0, 255, 0, 0, 255, 0])
        let pixelated = Pixelation.pixelate(bitmap, size: 2)
        #expect(pixelated.pixel(x: 0, y: 0) == RGBA(r: 255, g: 0, b: 0, a: 128))
        #expect(pixelated.pixel(x: 1, y: 0) == pixelated.pixel(x: 0, y: 0))
        // Red at a quarter coverage beside green at three quarters: weighted 1:3.
        let mixed = Bitmap(width: 2, height: 1, pixels: [200, 0, 0, 64, 0, 200, 0, 192])
        #expect(Pixelation.pixelate(mixed, size: 2).pixel(x: 0, y: 0) == RGBA(r: 50, g: 150, b: 0, a: 128))
        // All transparent: transparent black.
        let clear = Bitmap(width: 2, height: 1, pixels: [9, 9, 9, 0, 7, 7, 7, 0])
        #expect(Pixelation.pixelate(clear, size: 2).pixel(x: 0, y: 0) == RGBA(r: 0, g: 0, b: 0, a: 0))
    }

    @Test func sizesOfOneOrLessChangeNothing() {
        let bitmap = row([1, 2, 3])
        #expect(Pixelation.pixelate(bitmap, size: 1).pixels == bitmap.pixels)
        #expect(Pixelation.pixelate(bitmap, size: 0).pixels == bitmap.pixels)
    }
}
