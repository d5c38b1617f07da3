import Foundation

/// The ICC colour profile an image was tagged with, kept on the decoded ``Image``.
///
/// Decoders convert tagged pixels to sRGB by default (``DecodeOptions/convertsToSRGB``); the
/// source's profile stays here for a caller who wants its colours as they were (wide gamut):
/// decode with conversion off, and the pixels are in this profile's space.
public struct ColorProfile: Sendable, Hashable {
    /// The device side of a profile: what kind of pixels it describes.
    public enum ColorSpace: String, Sendable, Hashable {
        case rgb, gray, cmyk
        /// Any other (Lab, n-colour, …): never used for conversion.
        case other
    }

    /// The profile as ICC bytes, exactly as embedded (or as built, for a PNG's `cHRM`/`gAMA`).
    public let iccData: Data
    /// The profile's description (its `desc` tag, such as "Display P3"); nil when it has none or
    /// when lcms2 cannot read the profile.
    public let description: String?
    /// The profile's colour space; nil when lcms2 cannot read the profile (the image's pixels
    /// were then left as they were).
    public let colorSpace: ColorSpace?

    /// Reads `iccData` with lcms2 (description and colour space). Bytes lcms2 rejects still make
    /// a profile, with nil ``description`` and ``colorSpace``.
    public init(iccData: Data) {
        let facts = ColorConversionCache.shared.facts(for: iccData)
        self.init(iccData: iccData, description: facts.description, colorSpace: facts.colorSpace)
    }

    init(iccData: Data, description: String?, colorSpace: ColorSpace?) {
        self.iccData = iccData
        self.description = description
        self.colorSpace = colorSpace
    }

    /// True when lcms2 could read the profile.
    public var isReadable: Bool { colorSpace != nil }
}
