import CLCMS2
import Foundation
import Testing
@testable import WebImageCodecs

/// The table-driven path for matrix/TRC profiles gives what `cmsDoTransform` gives, within 1.
@Suite("Colour: matrix/TRC fast path")
struct ColorMatrixShaperTests {
    /// Every colour on a 52-step cube plus pseudo-random ones, RGBA with varied alpha.
    static let pixels: [UInt8] = {
        var out: [UInt8] = []
        for r in stride(from: 0, through: 255, by: 5) {
            for g in stride(from: 0, through: 255, by: 5) {
                for b in stride(from: 0, through: 255, by: 5) { out += [UInt8(r), UInt8(g), UInt8(b), UInt8((r + b) & 0xFF)] }
            }
        }
        var state: UInt64 = 0x9E37_79B9_7F4A_7C15
        for _ in 0..<20_000 {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            out += [UInt8(truncatingIfNeeded: state >> 24), UInt8(truncatingIfNeeded: state >> 32),
                    UInt8(truncatingIfNeeded: state >> 40), 255]
        }
        return out
    }()

    /// Every third value of each channel (86³ colours), opaque.
    static let grid: [UInt8] = {
        var out: [UInt8] = []
        out.reserveCapacity(86 * 86 * 86 * 4)
        for r in stride(from: 0, through: 255, by: 3) {
            for g in stride(from: 0, through: 255, by: 3) {
                for b in stride(from: 0, through: 255, by: 3) { out += [UInt8(r), UInt8(g), UInt8(b), 255] }
            }
        }
        return out
    }()

    func lcmsReference(_ icc: Data, pixels: [UInt8] = Self.pixels) throws -> [UInt8] {
        let source = try #require(icc.withUnsafeBytes { cmsOpenProfileFromMem($0.baseAddress, UInt32($0.count)) })
        let srgb = try #require(cmsCreate_sRGBProfile())
        defer { cmsCloseProfile(source); cmsCloseProfile(srgb) }
        let transform = try #require(cmsCreateTransform(source, CLCMS2_TYPE_RGBA_8, srgb, CLCMS2_TYPE_RGBA_8,
                                                        UInt32(INTENT_PERCEPTUAL), UInt32(cmsFLAGS_COPY_ALPHA)))
        defer { cmsDeleteTransform(transform) }
        var out = [UInt8](repeating: 0, count: pixels.count)
        cmsDoTransform(transform, pixels, &out, UInt32(pixels.count / 4))
        return out
    }

    func check(_ icc: Data, pixels: [UInt8] = Self.pixels) throws {
        let conversion = try #require(ColorConversionCache.shared.conversion(for: icc, source: .rgb).conversion)
        var converted = pixels
        converted.withUnsafeMutableBufferPointer { conversion.apply($0) }
        let reference = try lcmsReference(icc, pixels: pixels)
        var worst = 0
        for i in 0..<converted.count { worst = max(worst, abs(Int(converted[i]) - Int(reference[i]))) }
        #expect(worst <= 1, "largest difference from cmsDoTransform: \(worst)")
        for i in stride(from: 3, to: converted.count, by: 4) where converted[i] != pixels[i] {
            Issue.record("alpha changed at pixel \(i / 4)")
            break
        }
    }

    @Test func displayP3() throws { try check(ColorFixtures.displayP3) }

    @Test func libraryDisplayP3() throws { try check(ColorProfile.displayP3.iccData) }

    @Test func displayP3DenseGrid() throws { try check(ColorFixtures.displayP3, pixels: Self.grid) }

    /// An odd pixel count: the loop takes two pixels a step, the last one alone.
    @Test func oddPixelCount() throws { try check(ColorFixtures.displayP3, pixels: Array(Self.pixels.prefix(4 * 333))) }

    @Test func gamma18WideGamut() throws {
        // ProPhoto-like primaries (D50) with a plain 1.8 power curve: large matrix terms, clipping.
        let profile = ColorProfile.png(gamma: 1 / 1.8, chromaticities: PNGChromaticities(
            white: (0.3457, 0.3585), red: (0.7347, 0.2653), green: (0.1596, 0.8404), blue: (0.0366, 0.0001)))
        try check(try #require(profile).iccData)
        try check(try #require(profile).iccData, pixels: Self.grid)
    }
}
