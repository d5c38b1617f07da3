import Foundation
import Testing
@testable import WebImage
@testable import WebImageCodecs
@testable import WebImageLoading

@Suite("WebP coder: still images")
struct WebPCoderTests {
    let coder = WebPCoder()

    @Test func recognisesWebPOnly() throws {
        let webp = try WebPFixtures.encode(TestBitmaps.quadrants())
        #expect(coder.canDecode(webp))
        #expect(coder.canDecodeIncrementally(webp))
        #expect(!coder.canDecode(Data("RIFF0000WAVEfmt ".utf8)))
        #expect(coder.canEncode(to: .webp))
        #expect(!coder.canEncode(to: .png))
        #expect(CodersManager.shared.canDecode(webp))
    }

    @Test func lossyRoundTripKeepsPixelsClose() throws {
        let source = TestBitmaps.gradient(width: 64, height: 48)
        let image = try coder.decode(try WebPFixtures.encode(source, quality: 0.9), options: .default)
        #expect(image.format == .webp)
        #expect(image.pixelSize == source.size)
        #expect(!image.isAnimated && !image.isPartial)
        #expect(!image.hasAlpha)
        #expect(WebPFixtures.meanError(image.bitmap, source) < 6)
    }

    @Test func losslessRoundTripIsExact() throws {
        let noise = [UInt8](TestBitmaps.noise(count: 37 * 23 * 4, seed: 7))
        let source = Bitmap(width: 37, height: 23, pixels: noise)
        let image = try coder.decode(try WebPFixtures.encode(source, lossless: true), options: .default)
        #expect(image.bitmap == source)
    }

    @Test func lossyKeepsAlpha() throws {
        let source = TestBitmaps.gradient(width: 64, height: 48, alpha: true)
        let image = try coder.decode(try WebPFixtures.encode(source, quality: 0.8), options: .default)
        #expect(image.hasAlpha)
        var worstAlpha = 0
        for i in stride(from: 3, to: source.pixels.count, by: 4) {
            worstAlpha = max(worstAlpha, abs(Int(image.bitmap.pixels[i]) - Int(source.pixels[i])))
        }
        #expect(worstAlpha <= 2)
        #expect(TestBitmaps.isUprightQuadrants(
            try coder.decode(try WebPFixtures.encode(TestBitmaps.quadrants(), quality: 0.8), options: .default).bitmap))
    }

    @Test func lowerQualityIsSmaller() throws {
        let source = TestBitmaps.gradient(width: 128, height: 96)
        let high = try WebPFixtures.encode(source, quality: 1)
        let low = try WebPFixtures.encode(source, quality: 0.1)
        #expect(low.count < high.count)
    }

    @Test func maxFileSizeFindsAQualityThatFits() throws {
        let source = TestBitmaps.gradient(width: 128, height: 96)
        let high = try WebPFixtures.encode(source, quality: 1)
        let low = try WebPFixtures.encode(source, quality: 0.1)
        let limit = (high.count + low.count) / 2
        let data = try coder.encode(Image(bitmap: source), as: .webp, options: EncodeOptions(maxFileSize: limit))
        #expect(data.count <= limit)
        #expect(data.count >= low.count)
        #expect(try coder.decode(data, options: .default).pixelSize == source.size)
        // An impossible budget still gives the smallest file rather than failing.
        let tiny = try coder.encode(Image(bitmap: source), as: .webp, options: EncodeOptions(maxFileSize: 10))
        #expect(tiny.count <= low.count)
    }

    @Test func encodeHonoursMaxPixelSize() throws {
        let options = EncodeOptions(maxPixelSize: PixelSize(width: 32, height: 32))
        let data = try coder.encode(Image(bitmap: TestBitmaps.quadrants(width: 64, height: 48)), as: .webp, options: options)
        #expect(try coder.decode(data, options: .default).pixelSize == PixelSize(width: 32, height: 24))
    }

    @Test func refusesOtherFormatsAndOversizedImages() {
        let image = Image(bitmap: Bitmap(width: 4, height: 4, fill: .white))
        #expect(throws: WebImageError.self) { try coder.encode(image, as: .png, options: .default) }
        let wide = Image(bitmap: Bitmap(width: 16_384, height: 1, fill: .white))
        let error = #expect(throws: WebImageError.self) { try coder.encode(wide, as: .webp, options: .default) }
        #expect(error?.code == .encodingFailed)
    }

    @Test(arguments: ["empty", "truncated", "random", "header only"])
    func badDataIsRefused(_ kind: String) throws {
        let good = try WebPFixtures.encode(TestBitmaps.gradient(width: 64, height: 48))
        let data: Data = switch kind {
        case "empty": Data()
        case "truncated": good.prefix(good.count / 2)
        case "header only": good.prefix(30)
        default: Data("RIFF".utf8) + Data([0x40, 0, 0, 0]) + Data("WEBPVP8 ".utf8) + TestBitmaps.noise(count: 60, seed: 3)
        }
        let error = #expect(throws: WebImageError.self) { try coder.decode(data, options: .default) }
        #expect(error?.code == .badImageData)
    }

    @Test func randomBytesNeverCrash() {
        for seed in UInt64(0)..<50 {
            let data = Data("RIFF".utf8) + TestBitmaps.noise(count: 4, seed: seed) + Data("WEBPVP8L".utf8)
                + TestBitmaps.noise(count: 200, seed: seed + 100)
            #expect(throws: WebImageError.self) { try coder.decode(data, options: .default) }
        }
    }

    @Test func everyTruncationFailsCleanly() throws {
        let still = try WebPFixtures.encode(TestBitmaps.gradient(width: 24, height: 16, alpha: true))
        let animation = try WebPFixtures.animation([TestBitmaps.red, TestBitmaps.blue], durations: [0.1, 0.1],
                                                   width: 12, height: 8)
        for data in [still, animation] {
            for length in 0..<data.count {
                let error = #expect(throws: WebImageError.self) { try coder.decode(data.prefix(length), options: .default) }
                #expect(error?.code == .badImageData)
            }
            // Fed byte by byte, the incremental decoder never fails before the end.
            let decoder = coder.makeIncrementalDecoder(options: .default)
            for length in 1..<data.count {
                decoder.update(data.prefix(length), finished: false)
                _ = try decoder.currentImage()
            }
            decoder.update(data, finished: true)
            #expect(try decoder.currentImage()?.isPartial == false)
        }
    }

    @Test func canvasBombIsRefusedFromTheHeader() throws {
        // An animation's VP8X header patched to claim a 16384x16384 canvas (268 megapixels).
        let animation = try WebPFixtures.animation([TestBitmaps.red, TestBitmaps.green], durations: [0.1, 0.1])
        let bomb = WebPFixtures.patchingCanvas(of: animation, width: 16_384, height: 16_384)
        let error = #expect(throws: WebImageError.self) { try coder.decode(bomb, options: .default) }
        #expect(error?.code == .imageTooLarge)
        // A still image with alpha (also VP8X) patched the same way fails cleanly too.
        let still = try WebPFixtures.encode(TestBitmaps.gradient(width: 64, height: 48, alpha: true))
        let stillBomb = WebPFixtures.patchingCanvas(of: still, width: 16_384, height: 16_384)
        let stillError = #expect(throws: WebImageError.self) { try coder.decode(stillBomb, options: .default) }
        #expect(stillError?.code == .imageTooLarge || stillError?.code == .badImageData)
    }

    @Test func pixelLimitRefusesFullSizeButAllowsAThumbnail() throws {
        let data = try WebPFixtures.encode(TestBitmaps.gradient(width: 200, height: 100))
        var options = DecodeOptions(limits: DecodeLimits(maxPixels: 5_000))
        let error = #expect(throws: WebImageError.self) { try coder.decode(data, options: options) }
        #expect(error?.code == .imageTooLarge)
        options.thumbnailPixelSize = PixelSize(width: 60, height: 60)
        #expect(try coder.decode(data, options: options).pixelSize == PixelSize(width: 60, height: 30))
    }

    @Test func scaledDecodePastThePixelLimitCountsLibwebpsWorkingMemory() throws {
        let thumbnail = PixelSize(width: 60, height: 60)
        // Lossless images are decoded whole inside libwebp: over the pixel limit they are refused.
        let lossless = try WebPFixtures.encode(TestBitmaps.gradient(width: 200, height: 100), lossless: true)
        let options = DecodeOptions(thumbnailPixelSize: thumbnail, limits: DecodeLimits(maxPixels: 5_000))
        let error = #expect(throws: WebImageError.self) { try coder.decode(lossless, options: options) }
        #expect(error?.code == .imageTooLarge)
        // A lossy image with alpha needs 1 byte per pixel for its alpha plane: 4x the limit fits.
        let alpha = try WebPFixtures.encode(TestBitmaps.gradient(width: 200, height: 100, alpha: true))
        let fits = DecodeOptions(thumbnailPixelSize: thumbnail, limits: DecodeLimits(maxPixels: 5_000))
        #expect(try coder.decode(alpha, options: fits).pixelSize == PixelSize(width: 60, height: 30))
        let tooSmall = DecodeOptions(thumbnailPixelSize: thumbnail, limits: DecodeLimits(maxPixels: 4_999))
        #expect(throws: WebImageError.self) { try coder.decode(alpha, options: tooSmall) }
    }

    @Test func scaleFactorAndOptionsAreRecorded() throws {
        let data = try WebPFixtures.encode(TestBitmaps.quadrants())
        let options = DecodeOptions(scaleFactor: 2)
        let image = try CodersManager.shared.decode(data, options: options)
        #expect(image.scale == 2)
        #expect(image.decodeOptions == options)
    }
}
