import Foundation

/// Decodes Windows BMP files with gdk-pixbuf's BMP loader: 1- to 32-bit, palettes, RLE,
/// bit fields, top-down rows. The header is checked against the decode limits first.
///
/// Encodes uncompressed BMP (`BMPEncoder`): 24-bit when every pixel is opaque, 32-bit with
/// alpha otherwise; the first frame only.
public struct BMPCoder: ImageCoding {
    /// A BMP coder; stateless, so one instance serves every request.
    public init() {}

    /// True for data starting with `BM` and a plausible bitmap header.
    public func canDecode(_ data: Data) -> Bool {
        ImageFormat.detect(data) == .bmp
    }

    /// Reads the headers (no pixel is decoded): the image's size.
    public func imageInfo(for data: Data) -> ImageInfo? {
        guard canDecode(data) else { return nil }
        return data.withUnsafeBytes { raw in
            (try? BMPDecoder.size(raw.bindMemory(to: UInt8.self))).map { ImageInfo(format: .bmp, pixelSize: $0) }
        }
    }

    /// Decodes the bitmap, then resamples it to the requested size.
    public func decode(_ data: Data, options: DecodeOptions) throws -> Image {
        guard canDecode(data) else {
            throw WebImageError.badData("The data (\(data.count) bytes) does not start with a BMP header.")
        }
        return try data.withUnsafeBytes { raw in try BMPDecoder.decode(raw.bindMemory(to: UInt8.self), options: options) }
    }

    /// True for `.bmp`.
    public func canEncode(to format: ImageFormat) -> Bool { format == .bmp }

    /// Encodes the first frame (shrunk to `maxPixelSize` when set), losslessly; quality options
    /// do not apply.
    public func encode(_ image: Image, as format: ImageFormat, options: EncodeOptions) throws -> Data {
        guard format == .bmp else {
            throw WebImageError(.unsupportedFormat, "The BMP coder cannot encode \(format.rawValue) images.")
        }
        var still = options
        still.firstFrameOnly = true
        return try BMPEncoder.encode(still.encodeFrames(of: image).frame(at: 0).bitmap)
    }
}
