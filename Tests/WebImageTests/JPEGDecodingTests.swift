import CTurboJPEG
import Foundation
import Testing
@testable import WebImage
@testable import WebImageCodecs
@testable import WebImageLoading

@Suite("JPEG decoding")
struct JPEGDecodingTests {
    let coder = JPEGCoder()

    @Test func roundTripKeepsSizeAndPixels() throws {
        let original = TestBitmaps.gradient(width: 96, height: 64)
        let data = try JPEGFixtures.encode(original, quality: 0.95)
        #expect(coder.canDecode(data))
        let image = try coder.decode(data, options: .default)
        #expect(image.pixelSize == original.size)
        #expect(image.format == .jpeg)
        #expect(!image.isPartial)
        for (x, y) in [(0, 0), (95, 0), (48, 32), (10, 60), (95, 63)] {
            #expect(image.bitmap.pixel(x: x, y: y).isClose(to: original.pixel(x: x, y: y), tolerance: 24))
        }
    }

    @Test func scaleFactorIsRecorded() throws {
        let data = try JPEGFixtures.encode(TestBitmaps.quadrants())
        let image = try coder.decode(data, options: DecodeOptions(scaleFactor: 2))
        #expect(image.scale == 2)
        #expect(image.decodeOptions?.scaleFactor == 2)
    }

    @Test func grayscaleDecodesAsGray() throws {
        let original = TestBitmaps.gradient(width: 64, height: 32)
        let data = try JPEGFixtures.compress(original.pixels, width: 64, height: 32, subsampling: TJSAMP_GRAY)
        let image = try coder.decode(data, options: .default)
        #expect(image.pixelSize == PixelSize(width: 64, height: 32))
        for (x, y) in [(0, 0), (63, 0), (32, 16), (63, 31)] {
            let p = image.bitmap.pixel(x: x, y: y), o = original.pixel(x: x, y: y)
            #expect(p.r == p.g && p.g == p.b && p.a == 255)
            let luma = (299 * Int(o.r) + 587 * Int(o.g) + 114 * Int(o.b)) / 1000
            #expect(abs(Int(p.r) - luma) <= 12)
        }
    }

    /// CMYK files store Adobe-inverted inks: 255 means no ink. Red is no cyan, full magenta and
    /// yellow, no black: stored (255, 0, 0, 255).
    @Test func cmykDecodesWithTheRightColours() throws {
        let w = 32, h = 16
        var cmyk = [UInt8](repeating: 0, count: w * h * 4)
        for y in 0..<h {
            for x in 0..<w {
                let i = (y * w + x) * 4
                let ink: [UInt8] = x < w / 2 ? [255, 0, 0, 255] : [0, 0, 255, 255] // red | blue
                cmyk[i] = ink[0]; cmyk[i + 1] = ink[1]; cmyk[i + 2] = ink[2]; cmyk[i + 3] = ink[3]
            }
        }
        let data = try JPEGFixtures.compress(cmyk, width: w, height: h, pixelFormat: TJPF_CMYK, subsampling: TJSAMP_444)
        let image = try coder.decode(data, options: .default)
        #expect(image.pixelSize == PixelSize(width: w, height: h))
        #expect(image.bitmap.pixel(x: 4, y: 8).isClose(to: TestBitmaps.red, tolerance: 20))
        #expect(image.bitmap.pixel(x: 27, y: 8).isClose(to: TestBitmaps.blue, tolerance: 20))
    }

    @Test func progressiveDecodes() throws {
        let original = TestBitmaps.quadrants(width: 80, height: 60)
        let data = try JPEGFixtures.progressive(original)
        let header = try data.withUnsafeBytes { try JPEGHeader.parse($0.bindMemory(to: UInt8.self)) }
        #expect(header?.isProgressive == true)
        let image = try coder.decode(data, options: .default)
        #expect(image.pixelSize == original.size)
        #expect(TestBitmaps.isUprightQuadrants(image.bitmap))
    }

    @Test func emptyDataIsBadImageData() {
        #expect(throws: WebImageError.self) { try coder.decode(Data(), options: .default) }
        #expect(JPEGFixtures.errorCode { try coder.decode(Data(), options: .default) } == .badImageData)
    }

    @Test func randomBytesAreBadImageData() {
        let noise = TestBitmaps.noise(count: 4096, seed: 7)
        #expect(JPEGFixtures.errorCode { try coder.decode(noise, options: .default) } == .badImageData)
        let fakeJPEG = Data([0xFF, 0xD8, 0xFF]) + TestBitmaps.noise(count: 4096, seed: 8)
        #expect(JPEGFixtures.errorCode { try coder.decode(fakeJPEG, options: .default) } == .badImageData)
    }

    @Test(arguments: [false, true])
    func truncatedDataIsBadImageData(progressive: Bool) throws {
        let bitmap = TestBitmaps.gradient(width: 128, height: 128)
        let data = progressive ? try JPEGFixtures.progressive(bitmap) : try JPEGFixtures.encode(bitmap)
        for fraction in [0.1, 0.5, 0.9] {
            let cut = data.prefix(Int(Double(data.count) * fraction))
            #expect(JPEGFixtures.errorCode { try coder.decode(cut, options: .default) } == .badImageData)
        }
        #expect(JPEGFixtures.errorCode { try coder.decode(data.prefix(data.count - 2), options: .default) } == .badImageData)
    }

    @Test func benignOdditiesAreTolerated() throws {
        let data = try JPEGFixtures.encode(TestBitmaps.quadrants())
        let image = try coder.decode(data + Data([0, 1, 2, 3]), options: .default)
        #expect(image.pixelSize == PixelSize(width: 64, height: 48))
        // Stray bytes between two header segments: libjpeg warns about extraneous bytes.
        var bytes = [UInt8](data)
        let secondSegment = 4 + (Int(bytes[4]) << 8 | Int(bytes[5]))
        bytes.insert(contentsOf: [0x00, 0x11, 0x22], at: secondSegment)
        let warned = try coder.decode(Data(bytes), options: .default)
        #expect(TestBitmaps.isUprightQuadrants(warned.bitmap))
    }

    @Test func missingScanDataIsBadImageDataEvenWithAnEndMarker() throws {
        let data = try JPEGFixtures.encode(TestBitmaps.gradient(width: 128, height: 128))
        let cut = data.prefix(data.count * 2 / 3) + Data([0xFF, 0xD9])
        #expect(JPEGFixtures.errorCode { try coder.decode(cut, options: .default) } == .badImageData)
    }

    @Test func corruptScanDataNeverCrashes() throws {
        let data = try JPEGFixtures.encode(TestBitmaps.gradient(width: 128, height: 96))
        for seed in 0..<8 {
            var bytes = [UInt8](data)
            let noise = [UInt8](TestBitmaps.noise(count: 64, seed: UInt64(seed)))
            let start = bytes.count / 2
            bytes.replaceSubrange(start..<start + 64, with: noise)
            do {
                let image = try coder.decode(Data(bytes), options: .default)
                #expect(image.pixelSize == PixelSize(width: 128, height: 96))
            } catch let error as WebImageError {
                #expect(error.code == .badImageData)
            }
        }
    }

    @Test func corruptFrameHeaderIsBadImageData() throws {
        let data = try JPEGFixtures.encode(TestBitmaps.quadrants())
        let zeroWidth = JPEGFixtures.patchingFrameSize(data, width: 0, height: 48)
        #expect(JPEGFixtures.errorCode { try coder.decode(zeroWidth, options: .default) } == .badImageData)
    }

    @Test func hugeDeclaredSizeIsRefusedFromTheHeader() throws {
        let data = try JPEGFixtures.encode(TestBitmaps.quadrants())
        let bomb = JPEGFixtures.patchingFrameSize(data, width: 60000, height: 60000)
        #expect(JPEGFixtures.errorCode { try coder.decode(bomb, options: .default) } == .imageTooLarge)
        let small = DecodeLimits(maxPixels: 1000)
        #expect(JPEGFixtures.errorCode { try coder.decode(data, options: DecodeOptions(limits: small)) } == .imageTooLarge)
    }

    @Test func hugeDeclaredSizeWithThumbnailFailsCleanlyOrIsSmall() throws {
        let data = try JPEGFixtures.encode(TestBitmaps.quadrants())
        let bomb = JPEGFixtures.patchingFrameSize(data, width: 60000, height: 60000)
        let options = DecodeOptions(thumbnailPixelSize: PixelSize(width: 256, height: 256))
        do {
            let image = try coder.decode(bomb, options: options)
            #expect(image.width <= 256 && image.height <= 256)
        } catch let error as WebImageError {
            #expect(error.code == .badImageData || error.code == .imageTooLarge)
        }
    }
}
