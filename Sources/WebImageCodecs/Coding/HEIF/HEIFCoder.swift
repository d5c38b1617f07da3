import Foundation

/// Decodes HEIC and HEIF with libheif: the primary image with alpha, its clean aperture, rotation
/// and mirror applied, grids, 10-bit images reduced to 8 bits, colour (an ICC profile or `nclx`
/// values) converted to sRGB, and the embedded thumbnail when a thumbnail at most its size is
/// asked for. Limits are checked from the container.
///
/// Decoding only: the HEVC encoder libheif would use (x265) is GPL-licensed, so this library
/// writes no HEIC. AVIF files go to ``AVIFCoder``, although libheif could read them too.
public struct HEIFCoder: ImageCoding {
    /// A HEIF coder; stateless, so one instance serves every request.
    public init() {}

    /// True for data whose `ftyp` box names a HEIC brand (`heic`, `heix`, `hevc`, …) or only
    /// the generic HEIF brands (`mif1`, `msf1`).
    public func canDecode(_ data: Data) -> Bool {
        let format = ImageFormat.detect(data)
        return format == .heic || format == .heif
    }

    /// Reads the container (no image data is decoded): the primary image's size as shown.
    public func imageInfo(for data: Data) -> ImageInfo? {
        let format = ImageFormat.detect(data)
        guard format == .heic || format == .heif else { return nil }
        return data.withUnsafeBytes { raw in
            try? HEIFDecoder.info(raw.bindMemory(to: UInt8.self), format: format)
        }
    }

    /// Decodes the primary image (or a large enough embedded thumbnail). The container's sizes are
    /// checked against `options.limits` before any image data is decoded.
    public func decode(_ data: Data, options: DecodeOptions) throws -> Image {
        guard !data.isEmpty else { throw WebImageError.badData("The HEIF data is empty.") }
        let format = ImageFormat.detect(data)
        guard format == .heic || format == .heif else {
            throw WebImageError.badData("The data (\(data.count) bytes) has no HEIF ftyp box.")
        }
        return try data.withUnsafeBytes { raw in
            try HEIFDecoder.decode(raw.bindMemory(to: UInt8.self), format: format, options: options)
        }
    }

    /// Always false: HEIC encoding is not offered (see the type's description).
    public func canEncode(to format: ImageFormat) -> Bool { false }

    /// Throws ``WebImageError/Code/unsupportedFormat``: this coder decodes only.
    public func encode(_ image: Image, as format: ImageFormat, options: EncodeOptions) throws -> Data {
        throw WebImageError(.unsupportedFormat, "The HEIF coder decodes only; it cannot encode \(format.rawValue) images.")
    }
}
