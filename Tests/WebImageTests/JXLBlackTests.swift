import CJXL
import Foundation
import Testing
@testable import WebImageCodecs

/// A CMYK JPEG XL keeps its black in an extra channel, which libjxl 0.7 leaves to the
/// application: the decoder applies it (``JXLBlack``).
@Suite("JPEG XL black channel")
struct JXLBlackTests {
    /// A lossless 2×1 CMYK file tagged with `ColorFixtures.cmyk`: C, M, Y as stored (0 = full
    /// ink), then K. Pixel 0: no ink at all; pixel 1: no colour ink, full black.
    static func cmykFile() throws -> Data {
        guard let encoder = JxlEncoderCreate(nil) else { throw JXLFixtures.Failed(description: "no encoder") }
        defer { JxlEncoderDestroy(encoder) }
        func check(_ status: JxlEncoderStatus, _ what: String) throws {
            guard status == JXL_ENC_SUCCESS else { throw JXLFixtures.Failed(description: "\(what): \(JxlEncoderGetError(encoder))") }
        }
        var info = JxlBasicInfo()
        JxlEncoderInitBasicInfo(&info)
        info.xsize = 2
        info.ysize = 1
        info.bits_per_sample = 8
        info.num_color_channels = 3
        info.num_extra_channels = 1
        info.uses_original_profile = 1
        try check(JxlEncoderSetBasicInfo(encoder, &info), "basic info")
        var black = JxlExtraChannelInfo()
        JxlEncoderInitExtraChannelInfo(JXL_CHANNEL_BLACK, &black)
        black.bits_per_sample = 8
        try check(JxlEncoderSetExtraChannelInfo(encoder, 0, &black), "black channel")
        try ColorFixtures.cmyk.withUnsafeBytes { raw in
            try check(JxlEncoderSetICCProfile(encoder, raw.bindMemory(to: UInt8.self).baseAddress, raw.count), "ICC")
        }
        guard let options = JxlEncoderFrameSettingsCreate(encoder, nil) else { throw JXLFixtures.Failed(description: "no settings") }
        try check(JxlEncoderSetFrameLossless(options, 1), "lossless")
        var color = JxlPixelFormat(num_channels: 3, data_type: JXL_TYPE_UINT8, endianness: JXL_NATIVE_ENDIAN, align: 0)
        let cmy: [UInt8] = [255, 255, 255, 255, 255, 255]
        try cmy.withUnsafeBytes { try check(JxlEncoderAddImageFrame(options, &color, $0.baseAddress, $0.count), "frame") }
        var one = JxlPixelFormat(num_channels: 1, data_type: JXL_TYPE_UINT8, endianness: JXL_NATIVE_ENDIAN, align: 0)
        let k: [UInt8] = [255, 0]
        try k.withUnsafeBytes { try check(JxlEncoderSetExtraChannelBuffer(options, &one, $0.baseAddress, $0.count, 0), "black") }
        JxlEncoderCloseInput(encoder)
        var out = [UInt8](repeating: 0, count: 1 << 16)
        var next: UnsafeMutablePointer<UInt8>?
        var available = out.count
        let status = out.withUnsafeMutableBufferPointer { whole -> JxlEncoderStatus in
            next = whole.baseAddress
            return JxlEncoderProcessOutput(encoder, &next, &available)
        }
        try check(status, "output")
        return Data(out[..<(out.count - available)])
    }

    @Test func blackIsApplied() throws {
        let image = try JXLCoder().decode(try Self.cmykFile(), options: .default)
        let paper = image.bitmap.pixel(x: 0, y: 0), ink = image.bitmap.pixel(x: 1, y: 0)
        // No ink is the profile's paper (its white, darkened by 10%); full black is near black.
        #expect(paper.r > 200 && paper.g > 200 && paper.b > 200, "\(paper)")
        #expect(ink.r < 40 && ink.g < 40 && ink.b < 40, "\(ink)")
        #expect(ink.a == 255 && paper.a == 255)
    }

    @Test func blackIsAppliedWithConversionOff() throws {
        // RGBA cannot hold CMYK: it is converted whatever the options say.
        let image = try JXLCoder().decode(try Self.cmykFile(), options: DecodeOptions(convertsToSRGB: false))
        let ink = image.bitmap.pixel(x: 1, y: 0)
        #expect(ink.r < 40 && ink.g < 40 && ink.b < 40, "\(ink)")
    }

    @Test func naiveFormulaKeepsAlpha() {
        // C, M, Y stored 0 = full ink; alpha kept from the pixels.
        var pixels: [UInt8] = [255, 128, 0, 77]
        pixels.withUnsafeMutableBufferPointer { p in
            [UInt8(128)].withUnsafeBufferPointer { JXLBlack.apply($0, to: p, color: .none) }
        }
        #expect(pixels == [128, 64, 0, 77])
    }
}
