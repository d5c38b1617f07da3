import Foundation
import Testing
@testable import WebImageCodecs

/// Damaged HEIF input ends in a clear ``WebImageError``, never a crash: a missing primary item,
/// truncation, brands no coder takes, sizes over the limits (checked from the container).
@Suite("HEIF bad input")
struct HEIFBadInputTests {
    let coder = HEIFCoder()

    @Test func missingPrimaryItemIsNamed() throws {
        let data = try CodecFixtures.data("heif/missing-primary.heic")
        #expect(ImageFormat.detect(data) == .heic)
        let error = CodecFixtures.error { try CodersManager.shared.decode(data, options: .default) }
        #expect(error?.code == .badImageData)
        #expect(error?.message.contains("no primary image") == true, "\(String(describing: error))")
        #expect(coder.imageInfo(for: data) == nil)
    }

    @Test(arguments: [12, 40, 100, 200, 400, 590])
    func truncatedFilesFailCleanly(_ length: Int) throws {
        let data = try CodecFixtures.data("heif/still.heic")
        try #require(length < data.count)
        let error = CodecFixtures.error { try coder.decode(data.prefix(length), options: .default) }
        #expect(error?.code == .badImageData, "\(String(describing: error))")
        _ = coder.imageInfo(for: data.prefix(length))
    }

    @Test func unknownBrandsAreNotAnImageFormat() throws {
        let data = try CodecFixtures.data("heif/unknown-brand.heic")
        #expect(ImageFormat.detect(data) == .undefined)
        #expect(!coder.canDecode(data))
        #expect(CodecFixtures.errorCode { try CodersManager.shared.decode(data, options: .default) } == .badImageData)
        #expect(CodecFixtures.errorCode { try coder.decode(data, options: .default) } == .badImageData)
    }

    @Test func sizesOverTheLimitsAreRefusedFromTheContainer() throws {
        let limits = DecodeLimits(maxPixels: 63 * 47 - 1)
        let grid = try CodecFixtures.data("heif/odd-grid.heic")
        let error = CodecFixtures.error { try coder.decode(grid, options: DecodeOptions(limits: limits)) }
        #expect(error?.code == .imageTooLarge)
        #expect(error?.message.contains("63x47") == true, "\(String(describing: error))")
        let thumbnail = DecodeOptions(thumbnailPixelSize: PixelSize(width: 8, height: 8), limits: limits)
        #expect(CodecFixtures.errorCode { try coder.decode(grid, options: thumbnail) } == .imageTooLarge)
        #expect(try coder.decode(grid, options: DecodeOptions(limits: DecodeLimits(maxPixels: 64 * 64))).pixelSize
            == PixelSize(width: 63, height: 47))
    }

    @Test func fuzzInvariantsHoldOnEveryFixturePrefix() throws {
        let data = try CodecFixtures.data("heif/alpha.heic")
        for length in stride(from: 0, through: data.count, by: 41) {
            for options in FuzzReplay.optionSets {
                FuzzReplay.decode(data.prefix(length), with: coder, options: options, formats: [.heic])
            }
        }
        let noise = Data([0, 0, 0, 0x14] + Array("ftypheic".utf8) + [0, 0, 0, 0] + Array("mif1heic".utf8))
            + TestBitmaps.noise(count: 300, seed: 7)
        #expect(CodecFixtures.errorCode { try coder.decode(noise, options: .default) } == .badImageData)
    }
}
