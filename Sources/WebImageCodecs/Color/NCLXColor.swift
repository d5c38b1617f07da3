import Foundation

/// What an ISO-BMFF `colr` box of type `nclx` (AVIF, HEIF) says about the pixels' colour, as
/// ITU-T H.273 code points, and the profile the library converts them from.
///
/// - sRGB / BT.709 primaries (1), or unspecified (2), with the sRGB (13) or a BT.709-like curve
///   (1, 6, 14, 15), or an unspecified one: sRGB already, the fast path (no profile, nothing run).
/// - Display P3 primaries (12, SMPTE EG 432-1) with the sRGB curve: the built-in
///   ``ColorProfile/displayP3``, converted exactly as a Display P3 ICC profile is.
/// - Other known primaries (BT.709, BT.2020 (9), Display P3) with a known SDR curve (BT.709-like,
///   sRGB, gamma 2.2 (4), gamma 2.8 (5), linear (8)): an RGB profile built from the primaries,
///   the D65 white point and that curve.
/// - PQ (16) and HLG (18) are HDR curves this library does not tone-map, and other code points
///   are unknown: the pixels are left as decoded, with no profile.
struct NCLXColor: Sendable, Hashable {
    /// `colour_primaries` (H.273 table 2).
    var primaries: UInt16
    /// `transfer_characteristics` (H.273 table 3).
    var transfer: UInt16

    /// The profile the pixels are in, or nil when no conversion applies (sRGB already, HDR or
    /// unknown; see the type's description).
    var profile: ColorProfile? {
        guard let gamut = Gamut(primaries), let curve = Curve(transfer) else { return nil }
        if gamut == .bt709, curve == .bt709 || curve == .sRGB { return nil }
        return Self.profiles[Key(gamut: gamut, curve: curve)]
    }

    private struct Key: Hashable {
        let gamut: Gamut
        let curve: Curve
    }

    /// Every profile an `nclx` box can name (13 small ones), made on first use and kept for the
    /// life of the process: an immutable static, made in its one-time initializer, so nothing
    /// is added to it later (LeakSanitizer's suppressions treat what a one-time initializer makes
    /// as intentionally live: `Fuzz/lsan-suppressions.txt`).
    private static let profiles: [Key: ColorProfile] = {
        var all: [Key: ColorProfile] = [:]
        for gamut in Gamut.allCases {
            for curve in Curve.allCases where !(gamut == .bt709 && (curve == .bt709 || curve == .sRGB)) {
                all[Key(gamut: gamut, curve: curve)] = make(gamut, curve)
            }
        }
        return all
    }()

    private static func make(_ gamut: Gamut, _ curve: Curve) -> ColorProfile {
        if gamut == .displayP3, curve == .sRGB {
            // The built-in profile's bytes, so the conversion is the one a Display P3 ICC
            // profile gets (and is cached once); named for where it came from.
            let p3 = ColorProfile.displayP3
            return ColorProfile(iccData: p3.iccData, description: "Display P3 (nclx)", colorSpace: p3.colorSpace)
        }
        let name = curve == gamut.nativeCurve ? "\(gamut.name) (nclx)" : "\(gamut.name), \(curve.name) curve (nclx)"
        let c = gamut.chromaticities
        return ColorProfile.rgb(description: name, white: c.white, red: c.red, green: c.green, blue: c.blue,
                                curve: curve.parameters)
    }

    /// Primaries with a D65 white point the library can build a profile for.
    private enum Gamut: Hashable, CaseIterable {
        case bt709, bt2020, displayP3

        init?(_ code: UInt16) {
            switch code {
            case 1, 2: self = .bt709  // 2: unspecified, taken as the web's default
            case 9: self = .bt2020
            case 12: self = .displayP3
            default: return nil
            }
        }

        var name: String {
            switch self {
            case .bt709: "BT.709"
            case .bt2020: "BT.2020"
            case .displayP3: "Display P3"
            }
        }

        /// The curve the name alone implies.
        var nativeCurve: Curve { self == .displayP3 ? .sRGB : .bt709 }

        var chromaticities: PNGChromaticities {
            let white = (x: 0.3127, y: 0.3290)
            switch self {
            case .bt709: return .sRGB
            case .bt2020: return PNGChromaticities(white: white, red: (0.708, 0.292), green: (0.170, 0.797),
                                                   blue: (0.131, 0.046))
            case .displayP3: return PNGChromaticities(white: white, red: (0.680, 0.320), green: (0.265, 0.690),
                                                      blue: (0.150, 0.060))
            }
        }
    }

    /// SDR transfer curves, decoded as ICC parametric curves.
    private enum Curve: Hashable, CaseIterable {
        case bt709, sRGB, gamma22, gamma28, linear

        init?(_ code: UInt16) {
            switch code {
            case 1, 6, 14, 15: self = .bt709
            case 2, 13: self = .sRGB  // 2: unspecified, taken as sRGB
            case 4: self = .gamma22
            case 5: self = .gamma28
            case 8: self = .linear
            default: return nil  // PQ (16), HLG (18) and the rest
            }
        }

        var name: String {
            switch self {
            case .bt709: "BT.709"
            case .sRGB: "sRGB"
            case .gamma22: "gamma 2.2"
            case .gamma28: "gamma 2.8"
            case .linear: "linear"
            }
        }

        /// The decoding curve as the parameters of an ICC parametric curve of type 4
        /// (Y = (aX + b)^g for X ≥ d, else cX): BT.709's is the inverse of its OETF.
        var parameters: [Double] {
            switch self {
            case .bt709: [1 / 0.45, 1 / 1.099, 0.099 / 1.099, 1 / 4.5, 0.081]
            case .sRGB: [2.4, 1 / 1.055, 0.055 / 1.055, 1 / 12.92, 0.04045]
            case .gamma22: [2.2, 1, 0, 0, 0]
            case .gamma28: [2.8, 1, 0, 0, 0]
            case .linear: [1, 1, 0, 0, 0]
            }
        }
    }
}

extension ColorManagement {
    /// The plan for pixels whose colour an `nclx` box describes: a profile library-made from it
    /// (converted unless conversion is off), or nothing to do.
    static func plan(nclx: NCLXColor, source: ColorSource, options: DecodeOptions) -> Plan {
        guard let profile = nclx.profile else { return .none }
        return plan(profile: profile, source: source, options: options)
    }
}
