import Testing
@testable import WebImage
@testable import WebImageCodecs
@testable import WebImageLoading

@Suite("Image sizing rules")
struct ImageSizingTests {
    func fit(_ w: Int, _ h: Int, _ bw: Int, _ bh: Int, aspect: Bool = true, up: Bool = false) -> PixelSize {
        ImageSizing.scaledSize(PixelSize(width: w, height: h), toFit: PixelSize(width: bw, height: bh),
                               preserveAspectRatio: aspect, allowUpscale: up)
    }

    @Test func thumbnailSizes() {
        #expect(fit(100, 200, 150, 150) == PixelSize(width: 75, height: 150))
        #expect(fit(100, 200, 300, 300) == PixelSize(width: 100, height: 200))
        #expect(fit(100, 200, 300, 300, up: true) == PixelSize(width: 150, height: 300))
        #expect(fit(100, 200, 150, 150, aspect: false) == PixelSize(width: 100, height: 150))
        #expect(fit(100, 200, 150, 150, aspect: false, up: true) == PixelSize(width: 150, height: 150))
        #expect(fit(0, 0, 150, 150) == PixelSize(width: 0, height: 0))
        #expect(fit(100, 200, 0, 0) == PixelSize(width: 100, height: 200))
        #expect(fit(5250, 3450, 400, 300) == PixelSize(width: 400, height: 263))
    }

    @Test func limitBytes() {
        let big = PixelSize(width: 8000, height: 6000)
        #expect(ImageSizing.scaledSize(big, limitBytes: 1) == PixelSize(width: 1, height: 1))
        let limited = ImageSizing.scaledSize(big, limitBytes: 60 * 1024 * 1024)
        #expect(limited.area <= 60 * 1024 * 1024 / 4)
        #expect(limited.width < 8000 && limited.width > 4000)
        let small = PixelSize(width: 100, height: 100)
        #expect(ImageSizing.scaledSize(small, limitBytes: 60 * 1024 * 1024) == small)
        #expect(ImageSizing.scaledSize(.zero, limitBytes: 100) == PixelSize(width: 1, height: 1))
        let square = ImageSizing.scaledSize(PixelSize(width: 2000, height: 2000), limitBytes: 1000 * 1000 * 4)
        #expect(square == PixelSize(width: 1000, height: 1000))
    }

    @Test func scaleFactorFromKey() {
        #expect(ImageSizing.scaleFactor(forKey: nil) == 1)
        #expect(ImageSizing.scaleFactor(forKey: "@2x.png") == 1) // shorter than 8 characters
        #expect(ImageSizing.scaleFactor(forKey: "test@2x.gif") == 2)
        #expect(ImageSizing.scaleFactor(forKey: "image@3x.png") == 3)
        #expect(ImageSizing.scaleFactor(forKey: "https://x.com/a%402x.png") == 2)
        #expect(ImageSizing.scaleFactor(forKey: "file%402x.png") == 1)
        #expect(ImageSizing.scaleFactor(forKey: "https://x.com/plain.png") == 1)
        // SDWebImage looks for 2 before 3: @2x. anywhere wins; the escaped form counts in http(s) keys only.
        #expect(ImageSizing.scaleFactor(forKey: "https://x.com/a@3x.b/c%402x.png") == 2)
        #expect(ImageSizing.scaleFactor(forKey: "folder@3x.png/image@2x.png") == 2)
        #expect(ImageSizing.scaleFactor(forKey: "https://x.com/a%403x.png") == 3)
        // Not a scale marker: another digit, no "x.", or cut off at the end of the key.
        #expect(ImageSizing.scaleFactor(forKey: "sprite@4x.png") == 1)
        #expect(ImageSizing.scaleFactor(forKey: "photo@2xl.png") == 1)
        #expect(ImageSizing.scaleFactor(forKey: "https://x.com/end@2x") == 1)
        #expect(ImageSizing.scaleFactor(forKey: "https://x.com/end%40") == 1)
        #expect(ImageSizing.scaleFactor(forKey: "https://x.com/ünïcode@2x.png") == 2)
    }

    @Test func orientationParsing() {
        // Little-endian TIFF with one IFD entry: orientation = 6.
        let tiff: [UInt8] = [0x49, 0x49, 0x2A, 0, 8, 0, 0, 0, 1, 0, 0x12, 0x01, 3, 0, 1, 0, 0, 0, 6, 0, 0, 0]
        #expect(tiff.withUnsafeBufferPointer { EXIFOrientation.parse(exif: $0) } == .right)
        let big: [UInt8] = Array("Exif".utf8) + [0, 0, 0x4D, 0x4D, 0, 0x2A, 0, 0, 0, 8, 0, 1, 0x01, 0x12, 0, 3, 0, 0, 0, 1, 0, 8, 0, 0]
        #expect(big.withUnsafeBufferPointer { EXIFOrientation.parse(exif: $0) } == .left)
        let junk: [UInt8] = [1, 2, 3]
        #expect(junk.withUnsafeBufferPointer { EXIFOrientation.parse(exif: $0) } == nil)
    }

    @Test func resamplerKeepsFlatColourAndAlpha() {
        let red = Bitmap(width: 40, height: 30, fill: RGBA(r: 200, g: 10, b: 10))
        let small = Resampler.resize(red, to: PixelSize(width: 7, height: 5))
        #expect(small.size == PixelSize(width: 7, height: 5))
        #expect(small.pixel(x: 3, y: 2) == RGBA(r: 200, g: 10, b: 10))
        let big = Resampler.resize(red, to: PixelSize(width: 97, height: 61))
        #expect(big.pixel(x: 96, y: 60) == RGBA(r: 200, g: 10, b: 10))
        // Half transparent red next to fully transparent black: no dark fringe.
        var px = [UInt8]()
        for x in 0..<4 { px += x < 2 ? [255, 0, 0, 128] : [0, 0, 0, 0] }
        let mixed = Resampler.resize(Bitmap(width: 4, height: 1, pixels: px), to: PixelSize(width: 1, height: 1))
        #expect(mixed.pixel(x: 0, y: 0).r == 255)
        #expect(mixed.pixel(x: 0, y: 0).a == 64)
    }

    @Test func orientationTransformsPixels() {
        // 2x1: left red, right green.
        let b = Bitmap(width: 2, height: 1, pixels: [255, 0, 0, 255, 0, 255, 0, 255])
        let mirrored = b.applying(.upMirrored)
        #expect(mirrored.pixel(x: 0, y: 0) == RGBA(r: 0, g: 255, b: 0))
        let right = b.applying(.right) // rotate clockwise: 1x2, red on top
        #expect(right.size == PixelSize(width: 1, height: 2))
        #expect(right.pixel(x: 0, y: 0) == RGBA(r: 255, g: 0, b: 0))
        let left = b.applying(.left) // rotate counter-clockwise: green on top
        #expect(left.pixel(x: 0, y: 0) == RGBA(r: 0, g: 255, b: 0))
    }
}
