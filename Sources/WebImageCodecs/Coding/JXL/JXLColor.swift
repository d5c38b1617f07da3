import CJXL
import Foundation

/// Chooses the colour space a JPEG XL decodes into and what the library then does, at the
/// colour-encoding event.
///
/// - CMYK files (a black extra channel): converted from their CMYK profile with lcms2, or by
///   the naive formula when it rejects the profile (``JXLBlack``).
/// - sRGB files (the encoded sRGB enum): the fast path, nothing to convert.
/// - XYB files (lossy, `uses_original_profile` false) are stored in an absolute space, so
///   libjxl renders them into whatever space is asked for: sRGB directly, which is exact and
///   costs nothing more. With conversion off they are rendered into the file's own space when
///   it is an encoded one; a space given only as an ICC profile cannot be rendered into by
///   libjxl 0.7 (it has no colour management of its own), so those pixels come out in sRGB and
///   the image is tagged sRGB.
/// - Other files (lossless, or lossy without XYB) come out in their own space, described by an
///   ICC profile (embedded, or made by libjxl from the encoded space), and are converted with
///   lcms2 like JPEG and PNG (``ColorManagement``); a profile lcms2 rejects leaves the pixels as
///   they are.
enum JXLColor {
    /// Reads the encoding at the colour-encoding event, tells libjxl the output space, and
    /// returns the plan for the decoded pixels.
    static func plan(_ session: JXLDecodeSession, options: DecodeOptions) -> ColorManagement.Plan {
        let decoder = session.decoder
        if session.blackChannel != nil {
            // CMYK: RGBA cannot hold it, so it is converted whatever the options say.
            var cmykOptions = options
            cmykOptions.convertsToSRGB = true
            return ColorManagement.plan(icc: icc(decoder, JXL_COLOR_PROFILE_TARGET_ORIGINAL),
                                        source: .cmyk(inverted: true), options: cmykOptions)
        }
        let gray = session.info.num_color_channels == 1
        var original = JxlColorEncoding()
        let encoded = JxlDecoderGetColorAsEncodedProfile(decoder, nil, JXL_COLOR_PROFILE_TARGET_ORIGINAL,
                                                         &original) == JXL_DEC_SUCCESS
        if encoded, isSRGB(original) { return ColorManagement.Plan(profile: .sRGB, conversion: nil) }
        let source: ColorSource = gray ? .gray : .rgb
        if session.info.uses_original_profile == 0 {
            let originalICC = icc(decoder, JXL_COLOR_PROFILE_TARGET_ORIGINAL)
            if !options.convertsToSRGB, encoded, JxlDecoderSetPreferredColorProfile(decoder, &original) == JXL_DEC_SUCCESS {
                return ColorManagement.plan(icc: originalICC, source: source, options: options)
            }
            var srgb = JxlColorEncoding()
            JxlColorEncodingSetToSRGB(&srgb, gray ? 1 : 0)
            if JxlDecoderSetPreferredColorProfile(decoder, &srgb) == JXL_DEC_SUCCESS, rendersSRGB(decoder) {
                let profile = options.convertsToSRGB ? originalICC.map(ColorProfile.init(iccData:)) : .sRGB
                return ColorManagement.Plan(profile: profile, conversion: nil)
            }
        }
        // The pixels come out in the space the data target names: convert that with lcms2.
        if rendersSRGB(decoder) {
            return ColorManagement.Plan(profile: .sRGB, conversion: nil)
        }
        return ColorManagement.plan(icc: icc(decoder, JXL_COLOR_PROFILE_TARGET_DATA), source: source, options: options)
    }

    /// True when the decoded pixels will be sRGB.
    private static func rendersSRGB(_ decoder: OpaquePointer) -> Bool {
        var data = JxlColorEncoding()
        return JxlDecoderGetColorAsEncodedProfile(decoder, nil, JXL_COLOR_PROFILE_TARGET_DATA, &data) == JXL_DEC_SUCCESS
            && isSRGB(data)
    }

    /// True for the sRGB encoding (colour or gray): D65 white, sRGB primaries, the sRGB curve.
    static func isSRGB(_ encoding: JxlColorEncoding) -> Bool {
        let space = encoding.color_space
        guard space == JXL_COLOR_SPACE_RGB || space == JXL_COLOR_SPACE_GRAY,
              encoding.white_point == JXL_WHITE_POINT_D65,
              encoding.transfer_function == JXL_TRANSFER_FUNCTION_SRGB else { return false }
        return space == JXL_COLOR_SPACE_GRAY || encoding.primaries == JXL_PRIMARIES_SRGB
    }

    /// The ICC profile libjxl gives for `target`, nil when it has none.
    private static func icc(_ decoder: OpaquePointer, _ target: JxlColorProfileTarget) -> Data? {
        var size = 0
        guard JxlDecoderGetICCProfileSize(decoder, nil, target, &size) == JXL_DEC_SUCCESS, size > 0 else { return nil }
        var bytes = Data(count: size)
        let status = bytes.withUnsafeMutableBytes { raw in
            JxlDecoderGetColorAsICCProfile(decoder, nil, target, raw.bindMemory(to: UInt8.self).baseAddress, size)
        }
        return status == JXL_DEC_SUCCESS ? bytes : nil
    }
}
