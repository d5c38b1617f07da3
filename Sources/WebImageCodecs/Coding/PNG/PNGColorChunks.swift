import CSPNG
import Foundation

/// The colour a PNG declares, in libspng's order of precedence: an `iCCP` profile; else an `sRGB`
/// chunk (sRGB, nothing to convert); else `cHRM` and `gAMA`, from which lcms2 builds a profile
/// (``ColorProfile/png(gamma:chromaticities:)``); else nothing (untagged, taken as sRGB).
enum PNGColorChunks {
    /// The colour plan for the PNG in `bytes`; `.none` when its chunks cannot be read (the
    /// decode itself then reports the damage).
    static func plan(_ bytes: UnsafeBufferPointer<UInt8>, options: DecodeOptions) -> ColorManagement.Plan {
        guard let ctx = try? SPNGContext(decoding: bytes, limits: options.limits),
              let ihdr = try? ctx.header() else { return .none }
        // Gray and gray+alpha pixels: a gray profile applies to them.
        let source: ColorSource = ihdr.color_type == 0 || ihdr.color_type == 4 ? .gray : .rgb
        var iccp = spng_iccp()
        if spng_get_iccp(ctx.raw, &iccp) == 0 {
            guard let profile = iccp.profile, iccp.profile_len > 0 else { return .none }
            return ColorManagement.plan(icc: Data(bytes: profile, count: iccp.profile_len), source: source,
                                        options: options)
        }
        var intent: UInt8 = 0
        if spng_get_srgb(ctx.raw, &intent) == 0 { return ColorManagement.Plan(profile: .sRGB, conversion: nil) }
        var gamma = 0.0
        let hasGamma = spng_get_gama(ctx.raw, &gamma) == 0
        var chrm = spng_chrm()
        let hasChromaticities = spng_get_chrm(ctx.raw, &chrm) == 0
        let chromaticities = hasChromaticities
            ? PNGChromaticities(white: (chrm.white_point_x, chrm.white_point_y), red: (chrm.red_x, chrm.red_y),
                                green: (chrm.green_x, chrm.green_y), blue: (chrm.blue_x, chrm.blue_y))
            : nil
        guard hasGamma || hasChromaticities,
              let profile = ColorProfile.png(gamma: hasGamma ? gamma : nil, chromaticities: chromaticities) else {
            return .none
        }
        return ColorManagement.plan(profile: profile, source: source, options: options)
    }
}
