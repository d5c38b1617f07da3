import Foundation

/// The built-in JPEG coder, on libjpeg-turbo's TurboJPEG API.
///
/// Decodes baseline, progressive, grayscale and CMYK/YCCK files, with EXIF orientation applied,
/// thumbnails and byte budgets served by DCT scaling (decoding at 1/2…1/8 size directly), and
/// limits checked from the header. Shows partial images while a download is in progress, and
/// encodes with a quality or a target file size.
public struct JPEGCoder: ProgressiveImageCoding {
    /// A JPEG coder; stateless, so one instance serves every request.
    public init() {}

    /// Reads the header: the format and the size as shown, with no pixel decoded.
    public func imageInfo(for data: Data) -> ImageInfo? { canDecode(data) ? ImageInfo.builtIn(data) : nil }

    /// True when the data starts with a JPEG signature.
    public func canDecode(_ data: Data) -> Bool {
        ImageFormat.detect(data) == .jpeg
    }

    /// Decodes a JPEG with TurboJPEG, applying EXIF orientation and scaling in the DCT for thumbnails.
    public func decode(_ data: Data, options: DecodeOptions) throws -> Image {
        try JPEGDecoder.decode(data, options: options)
    }

    /// True for `.jpeg`.
    public func canEncode(to format: ImageFormat) -> Bool {
        format == .jpeg
    }

    /// Encodes the first frame as JPEG, flattening alpha onto the options' background colour.
    public func encode(_ image: Image, as format: ImageFormat, options: EncodeOptions) throws -> Data {
        guard format == .jpeg else {
            throw WebImageError(.unsupportedFormat, "The JPEG coder cannot encode \(format.rawValue) images.")
        }
        return try JPEGEncoder.encode(image, options: options)
    }

    /// True for JPEG data: both baseline and progressive files show partial images.
    public func canDecodeIncrementally(_ data: Data) -> Bool {
        canDecode(data)
    }

    /// A decoder for one download, fed the growing buffer.
    public func makeIncrementalDecoder(options: DecodeOptions) -> any IncrementalImageDecoding {
        JPEGIncrementalDecoder(options: options)
    }
}
