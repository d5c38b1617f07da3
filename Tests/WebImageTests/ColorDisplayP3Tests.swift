import Foundation
import Testing
@testable import WebImageCodecs

/// A Display P3 patch decodes to the sRGB values lcms2 gives for it, from each format's way of
/// embedding a profile.
@Suite("Colour: Display P3 to sRGB")
struct ColorDisplayP3Tests {
    let patch = ColorFixtures.patch

    func expected() throws -> [UInt8] {
        try ColorFixtures.reference([patch.r, patch.g, patch.b], icc: ColorFixtures.displayP3)
    }

    func check(_ image: Image) throws {
        let want = try expected()
        let got = image.bitmap.pixel(x: 8, y: 8)
        #expect(ColorFixtures.near(got, want), "decoded \(got), lcms2 gives \(want)")
        #expect(!ColorFixtures.near(got, [patch.r, patch.g, patch.b]), "the patch was not converted")
        #expect(got.a == 255)
        #expect(image.colorProfile?.description == "Test Display P3")
        #expect(image.colorProfile?.colorSpace == .rgb)
    }

    @Test func jpeg() throws {
        try check(try JPEGCoder().decode(try ColorFixtures.taggedJPEG(), options: .default))
    }

    @Test func jpegWithTheProfileSplitOverSeveralChunks() throws {
        let plain = try ColorFixtures.taggedJPEG(icc: nil)
        let split = ColorFixtures.jpeg(plain, icc: ColorFixtures.displayP3, chunkSize: 100, sequence: nil)
        // Written out of order: the sequence numbers decide.
        let chunkCount = (ColorFixtures.displayP3.count + 99) / 100
        let shuffled = ColorFixtures.jpeg(plain, icc: ColorFixtures.displayP3, chunkSize: 100,
                                          sequence: Array((1...chunkCount).reversed()))
        try check(try JPEGCoder().decode(split, options: .default))
        try check(try JPEGCoder().decode(shuffled, options: .default))
    }

    @Test func png() throws {
        try check(try PNGCoder().decode(ColorFixtures.taggedPNG(), options: .default))
    }

    @Test func webp() throws {
        try check(try WebPCoder().decode(try ColorFixtures.taggedWebP(), options: .default))
    }

    @Test func thumbnailsAreConvertedToo() throws {
        let options = DecodeOptions(thumbnailPixelSize: PixelSize(width: 4, height: 4))
        let image = try JPEGCoder().decode(try ColorFixtures.taggedJPEG(), options: options)
        #expect(ColorFixtures.near(image.bitmap.pixel(x: 1, y: 1), try expected()))
    }
}
