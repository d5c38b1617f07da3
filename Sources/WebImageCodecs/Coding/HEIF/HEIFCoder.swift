import Foundation

/// Decodes HEIC and HEIF with libheif: the primary image with alpha, its clean aperture, rotation
/// and mirror applied, grids, 10-bit images reduced to 8 bits, colour (an ICC profile or `nclx`
/// values) converted to sRGB, and the embedded thumbnail when a thumbnail at most its size is
/// asked for. Limits are checked from the container.
///
/// Encodes HEIC only where the installed libheif has an HEVC encoder (``HEIFEncoder``; Debian's
/// libheif has x265's): `canEncode(to: .heic)` asks libheif. AVIF files go to ``AVIFCoder``,
/// although libheif could read them too.
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

    /// True for `.heic` when libheif has an HEVC encoder.
    public func canEncode(to format: ImageFormat) -> Bool { format == .heic && HEIFEncoder.isAvailable }

    /// Encodes the first frame (shrunk to `maxPixelSize` when set) as HEIC at the options'
    /// quality; throws ``WebImageError/Code/unsupportedFormat`` without an HEVC encoder, and
    /// ``WebImageError/Code/encodingFailed`` for a frame larger than 16384 on a side.
    public func encode(_ image: Image, as format: ImageFormat, options: EncodeOptions) throws -> Data {
        guard format == .heic else {
            throw WebImageError(.unsupportedFormat, "The HEIF coder cannot encode \(format.rawValue) images.")
        }
        var still = options
        still.firstFrameOnly = true
        return try HEIFEncoder.encode(still.encodeFrames(of: image).frame(at: 0).bitmap, quality: options.compressionQuality)
    }
}
