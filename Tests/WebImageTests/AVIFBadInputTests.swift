import Foundation
import Testing
@testable import WebImageCodecs

/// Damaged or hostile AVIF input ends in a clear ``WebImageError``, never a crash, and limits are
/// checked from the header before any pixel is decoded.
@Suite("AVIF bad input")
struct AVIFBadInputTests {
    let coder = AVIFCoder()

    @Test(arguments: [12, 32, 100, 200, 300, 360])
    func truncatedFilesFailCleanly(_ length: Int) throws {
        let data = try CodecFixtures.data("avif/still-8bit.avif")
        try #require(length < data.count)
        let error = CodecFixtures.error { try coder.decode(data.prefix(length), options: .default) }
        #expect(error?.code == .badImageData, "\(String(describing: error))")
        _ = coder.imageInfo(for: data.prefix(length)) // a header cut short: nil or a size, never a trap
    }

    @Test func gridLargerThanTheLimitIsRefusedFromTheHeader() throws {
        // 128x128 in four 64x64 cells: the grid's own size, read from the header, is refused
        // before any cell is decoded.
        let data = try CodecFixtures.data("avif/grid-2x2.avif")
        let limits = DecodeLimits(maxPixels: 128 * 128 - 1)
        let error = CodecFixtures.error { try coder.decode(data, options: DecodeOptions(limits: limits)) }
        #expect(error?.code == .imageTooLarge)
        #expect(error?.message.contains("128x128") == true, "\(String(describing: error))")
        // A thumbnail cannot help: there is no reduced AV1 decode, so the whole grid would be needed.
        let thumbnail = DecodeOptions(thumbnailPixelSize: PixelSize(width: 16, height: 16), limits: limits)
        #expect(CodecFixtures.errorCode { try coder.decode(data, options: thumbnail) } == .imageTooLarge)
        #expect(try coder.decode(data, options: DecodeOptions(limits: DecodeLimits(maxPixels: 128 * 128))).pixelSize
            == PixelSize(width: 128, height: 128))
    }

    @Test func gridCanvasLargerThanItsIspeIsRefused() throws {
        // avifenc stores the grid record (version, flags, rows - 1, columns - 1, 16-bit width and
        // height) in mdat; declare a 128x256 canvas behind the 128x128 ispe.
        var bytes = [UInt8](try CodecFixtures.data("avif/grid-2x2.avif"))
        let record: [UInt8] = [0, 0, 1, 1, 0, 0x80, 0, 0x80]
        let at = try #require(bytes.indices.dropLast(8).first { Array(bytes[$0..<$0 + 8]) == record })
        bytes[at + 6] = 0x01; bytes[at + 7] = 0x00
        let data = Data(bytes)
        let limits = DecodeLimits(maxPixels: 128 * 128)
        let error = CodecFixtures.error { try coder.decode(data, options: DecodeOptions(limits: limits)) }
        #expect(error?.code == .imageTooLarge, "\(String(describing: error))")
        // Within the limits, the four 64x64 cells cannot cover the canvas: corrupt.
        #expect(CodecFixtures.errorCode { try coder.decode(data, options: .default) } == .badImageData)
    }

    @Test func hevcDataUnderAnAVIFBrandIsRefused() throws {
        let data = try CodecFixtures.data("heif/hevc-with-avif-brand.avif")
        #expect(ImageFormat.detect(data) == .avif)
        let error = CodecFixtures.error { try CodersManager.shared.decode(data, options: .default) }
        #expect(error?.code == .badImageData, "\(String(describing: error))")
        #expect(error?.message.contains("AVIF") == true)
    }

    @Test func otherFormatsAndNoiseAreRefused() throws {
        let heic = try CodecFixtures.data("heif/still.heic")
        #expect(!coder.canDecode(heic))
        #expect(CodecFixtures.errorCode { try coder.decode(heic, options: .default) } == .badImageData)
        #expect(CodecFixtures.errorCode { try coder.decode(Data(), options: .default) } == .badImageData)
        for seed in 0..<8 {
            let ftyp = Data([0, 0, 0, 0x14] + Array("ftypavif".utf8) + [0, 0, 0, 0] + Array("avifmif1".utf8))
            let data = ftyp + TestBitmaps.noise(count: 64 + seed * 40, seed: UInt64(seed))
            #expect(CodecFixtures.errorCode { try coder.decode(data, options: .default) } == .badImageData)
        }
    }

    @Test func fuzzInvariantsHoldOnEveryFixturePrefix() throws {
        let data = try CodecFixtures.data("avif/alpha.avif")
        for length in stride(from: 0, through: data.count, by: 37) {
            for options in FuzzReplay.optionSets {
                FuzzReplay.decode(data.prefix(length), with: coder, options: options, formats: [.avif])
            }
        }
    }
}
