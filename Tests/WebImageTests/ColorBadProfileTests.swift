import Foundation
import Testing
@testable import WebImageCodecs

/// A profile lcms2 rejects, or one whose JPEG chunks do not add up, never fails the decode: the
/// image comes out unconverted.
@Suite("Colour: bad profiles")
struct ColorBadProfileTests {
    /// 300 bytes with an ICC-like size field and nothing valid after it.
    let garbage: Data = {
        var bytes = [UInt8](repeating: 0x5A, count: 300)
        bytes[0] = 0; bytes[1] = 0; bytes[2] = 0x01; bytes[3] = 0x2C
        return Data(bytes)
    }()

    @Test func rejectedProfileInPNGDecodesUnconverted() throws {
        let image = try PNGCoder().decode(ColorFixtures.taggedPNG(icc: garbage), options: .default)
        #expect(image.bitmap == ColorFixtures.solid())
        let profile = try #require(image.colorProfile)
        #expect(!profile.isReadable)
        #expect(profile.description == nil)
        #expect(profile.iccData == garbage)
    }

    @Test func rejectedProfileInJPEGDecodesUnconverted() throws {
        let untagged = try JPEGCoder().decode(try ColorFixtures.taggedJPEG(icc: nil), options: .default)
        let image = try JPEGCoder().decode(try ColorFixtures.taggedJPEG(icc: garbage), options: .default)
        #expect(image.bitmap == untagged.bitmap)
        #expect(image.colorProfile?.isReadable == false)
    }

    @Test func truncatedProfileIsRejected() throws {
        let half = ColorFixtures.displayP3.prefix(ColorFixtures.displayP3.count / 2)
        let image = try PNGCoder().decode(ColorFixtures.taggedPNG(icc: Data(half)), options: .default)
        #expect(image.bitmap == ColorFixtures.solid())
    }

    @Test func jpegWithAChunkMissingIsUntagged() throws {
        let plain = try ColorFixtures.taggedJPEG(icc: nil)
        let untagged = try JPEGCoder().decode(plain, options: .default)
        let chunks = (ColorFixtures.displayP3.count + 99) / 100
        let cases = [
            ColorFixtures.jpeg(plain, icc: ColorFixtures.displayP3, chunkSize: 100, sequence: Array(1..<chunks)),
            ColorFixtures.jpeg(plain, icc: ColorFixtures.displayP3, chunkSize: 100, sequence: [1, 1] + Array(3...chunks)),
            ColorFixtures.jpeg(plain, icc: ColorFixtures.displayP3, chunkSize: 100, count: chunks + 1),
            ColorFixtures.jpeg(plain, icc: ColorFixtures.displayP3, chunkSize: 100, count: 0),
        ]
        for data in cases {
            let image = try JPEGCoder().decode(data, options: .default)
            #expect(image.bitmap == untagged.bitmap)
            #expect(image.colorProfile == nil)
        }
    }

    @Test func headerOnlyICCChunkIsIgnored() throws {
        let plain = try ColorFixtures.taggedJPEG(icc: nil)
        let payload = Array("ICC_PROFILE\0".utf8)
        var data = Data(plain.prefix(2))
        data.append(contentsOf: [0xFF, 0xE2, 0, UInt8(payload.count + 2)] + payload)
        data.append(plain.dropFirst(2))
        let image = try JPEGCoder().decode(data, options: .default)
        #expect(image.colorProfile == nil)
    }
}
