import CLCMS2
import Foundation

extension ColorProfile {
    /// sRGB (IEC 61966-2.1), lcms2's built-in profile: what a PNG `sRGB` chunk declares, and the
    /// space every converted image is in.
    public static let sRGB: ColorProfile = built(description: "sRGB") { LCMSProfile.sRGB() }

    /// Display P3: DCI-P3 primaries, D65 white, the sRGB transfer curve. Wide-gamut photos from
    /// phones and cameras carry it; provided to tag or test with.
    public static let displayP3: ColorProfile = built(description: "Display P3") {
        rgbProfile(white: (0.3127, 0.3290), red: (0.680, 0.320), green: (0.265, 0.690), blue: (0.150, 0.060),
                   gamma: nil)
    }

    /// The profile a PNG without `iCCP` or `sRGB` declares through `cHRM` and `gAMA`.
    ///
    /// `gamma` is the file's `gAMA` value (the encoding exponent, such as 0.45455), nil without
    /// one (then the sRGB curve); `chromaticities` the `cHRM` white point and primaries, nil
    /// without one (then sRGB's). Nil when neither is given, or when both are sRGB's (a `gAMA`
    /// of 1/2.2 within 1% is taken as sRGB, as tools write it for a standard display): the
    /// pixels are then sRGB already.
    static func png(gamma: Double?, chromaticities: PNGChromaticities?) -> ColorProfile? {
        let gammaIsSRGB = gamma.map { abs($0 * 2.2 - 1) < 0.01 } ?? true
        let primariesAreSRGB = chromaticities.map { $0.isClose(to: .sRGB) } ?? true
        if gammaIsSRGB && primariesAreSRGB { return nil }
        if let gamma, !(gamma > 0.01 && gamma < 100) { return nil }
        let c = chromaticities ?? .sRGB
        return built(description: "PNG cHRM/gAMA") {
            rgbProfile(white: c.white, red: c.red, green: c.green, blue: c.blue, gamma: gamma.map { 1 / $0 })
        }
    }

    /// An RGB matrix/TRC profile described `description`, from a white point and primaries
    /// (CIE xy) and one decoding curve for the three channels, given as the five parameters of an
    /// ICC parametric curve of type 4 (for the colour an AVIF or HEIF `nclx` box describes).
    static func rgb(description: String, white: (x: Double, y: Double), red: (x: Double, y: Double),
                    green: (x: Double, y: Double), blue: (x: Double, y: Double), curve parameters: [Double]) -> ColorProfile {
        built(description: description) {
            guard let curve = LCMSCurve.parametric(parameters) else { return nil }
            defer { cmsFreeToneCurve(curve) }
            return LCMSProfile.rgb(white: white, red: red, green: green, blue: blue, curve: curve)
        }
    }

    /// An RGB matrix/TRC profile; the sRGB curve when `gamma` is nil.
    private static func rgbProfile(white: (x: Double, y: Double), red: (x: Double, y: Double),
                                   green: (x: Double, y: Double), blue: (x: Double, y: Double),
                                   gamma: Double?) -> LCMSProfile? {
        guard let curve = gamma.map(LCMSCurve.gamma) ?? LCMSCurve.sRGB() else { return nil }
        defer { cmsFreeToneCurve(curve) }
        return LCMSProfile.rgb(white: white, red: red, green: green, blue: blue, curve: curve)
    }

    /// A profile lcms2 builds, described and serialised; an empty, unreadable one if lcms2 fails.
    private static func built(description: String, _ make: () -> LCMSProfile?) -> ColorProfile {
        guard let profile = make() else { return ColorProfile(iccData: Data(), description: nil, colorSpace: nil) }
        profile.setDescription(description)
        let data = profile.iccData() ?? Data()
        return ColorProfile(iccData: data, description: description, colorSpace: profile.colorSpace)
    }
}

/// A PNG `cHRM` chunk: the white point and primaries as CIE xy.
struct PNGChromaticities {
    var white: (x: Double, y: Double)
    var red: (x: Double, y: Double)
    var green: (x: Double, y: Double)
    var blue: (x: Double, y: Double)

    static let sRGB = PNGChromaticities(white: (0.3127, 0.3290), red: (0.64, 0.33), green: (0.30, 0.60),
                                        blue: (0.15, 0.06))

    /// True when every coordinate is within 0.001 of `other`'s (cHRM stores 1/100000 steps).
    func isClose(to other: PNGChromaticities) -> Bool {
        func near(_ p: (x: Double, y: Double), _ q: (x: Double, y: Double)) -> Bool {
            abs(p.x - q.x) <= 0.001 && abs(p.y - q.y) <= 0.001
        }
        return near(white, other.white) && near(red, other.red) && near(green, other.green) && near(blue, other.blue)
    }
}
