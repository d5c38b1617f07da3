import Foundation

/// The colour step every decoder shares: from the profile a file declares to the profile kept
/// on the image and the conversion its pixels get.
enum ColorManagement {
    /// One decode's colour handling.
    struct Plan: Sendable {
        /// The profile to record on the image (``Image/colorProfile``).
        var profile: ColorProfile?
        /// The conversion to run on the decoded pixels; nil leaves them as they are (untagged,
        /// sRGB, a profile lcms2 rejects or one for other pixels, or conversion turned off).
        var conversion: ColorConversion?

        static let none = Plan(profile: nil, conversion: nil)

        /// Converts 4-byte pixels in place when there is a conversion.
        func apply(_ pixels: UnsafeMutableBufferPointer<UInt8>) {
            conversion?.apply(pixels)
        }
    }

    /// The plan for pixels of `source` kind tagged with the ICC bytes `icc` (nil or empty:
    /// untagged).
    static func plan(icc: Data?, source: ColorSource, options: DecodeOptions) -> Plan {
        guard let icc, !icc.isEmpty else { return .none }
        let cache = ColorConversionCache.shared
        if !options.convertsToSRGB {
            let facts = cache.facts(for: icc)
            return Plan(profile: ColorProfile(iccData: icc, description: facts.description,
                                              colorSpace: facts.colorSpace), conversion: nil)
        }
        let (facts, conversion) = cache.conversion(for: icc, source: source)
        return Plan(profile: ColorProfile(iccData: icc, description: facts.description, colorSpace: facts.colorSpace),
                    conversion: conversion)
    }

    /// The plan for pixels tagged with a profile the library made (a PNG's `cHRM`/`gAMA`).
    static func plan(profile: ColorProfile, source: ColorSource, options: DecodeOptions) -> Plan {
        guard options.convertsToSRGB, profile.isReadable else { return Plan(profile: profile, conversion: nil) }
        let conversion = ColorConversionCache.shared.conversion(for: profile.iccData, source: source).conversion
        return Plan(profile: profile, conversion: conversion)
    }
}
