import Foundation

/// Decodes and encodes TIFF with libtiff: the first image, 1- to 16-bit gray, palette, RGB and
/// CMYK (16-bit rounded to 8), associated or unassociated alpha, strips or tiles, the Orientation
/// tag and the embedded ICC profile applied; a pyramid's reduced-resolution image serves a
/// thumbnail. Reads and writes memory only, and libtiff's messages never reach stderr.
///
/// Writes 8-bit RGB (RGBA when any pixel is transparent) with LZW and the horizontal predictor:
/// lossless, fast, and read by every TIFF reader.
public struct TIFFCoder: ImageCoding {
    /// A TIFF coder; stateless, so one instance serves every request.
    public init() {}

    /// True for data starting with a classic (`II*\0`, `MM\0*`) or BigTIFF (`II+\0`, `MM\0+`) header.
    public func canDecode(_ data: Data) -> Bool {
        ImageFormat.detect(data) == .tiff
    }

    /// Reads the first directory (no pixel data is decoded): the first image's size as shown.
    public func imageInfo(for data: Data) -> ImageInfo? {
        guard canDecode(data) else { return nil }
        return data.withUnsafeBytes { raw in try? TIFFDecoder.info(raw.bindMemory(to: UInt8.self)) }
    }

    /// Decodes the first image (or a reduced-resolution copy of it that covers the thumbnail
    /// asked for). Its size is checked against `options.limits` before pixel memory is allocated.
    public func decode(_ data: Data, options: DecodeOptions) throws -> Image {
        guard !data.isEmpty else { throw WebImageError.badData("The TIFF data is empty.") }
        guard canDecode(data) else {
            throw WebImageError.badData("The data (\(data.count) bytes) does not start with a TIFF header.")
        }
        return try data.withUnsafeBytes { raw in
            try TIFFDecoder.decode(raw.bindMemory(to: UInt8.self), options: options)
        }
    }

    /// True for `.tiff`.
    public func canEncode(to format: ImageFormat) -> Bool { format == .tiff }

    /// Encodes the first frame (shrunk to `maxPixelSize` when set) losslessly; see the type's
    /// description for the layout. Quality options do not apply.
    public func encode(_ image: Image, as format: ImageFormat, options: EncodeOptions) throws -> Data {
        guard format == .tiff else {
            throw WebImageError(.unsupportedFormat, "The TIFF coder cannot encode \(format.rawValue) images.")
        }
        var still = options
        still.firstFrameOnly = true
        return try TIFFEncoder.encode(still.encodeFrames(of: image).frame(at: 0).bitmap)
    }
}
