import Foundation

/// Decodes and encodes GIF, animated or still, with giflib.
///
/// Frames are composed onto a full canvas (disposal, transparency and interlacing applied), so
/// every ``ImageFrame`` is a complete picture. Follows SDWebImage: a GIF without a loop count
/// plays once, and delays under 0.011 s become 0.1 s. Truncated files yield their complete frames.
public struct GIFCoder: ProgressiveImageCoding {
    /// A GIF coder; stateless, so one instance serves every request.
    public init() {}

    /// Reads the header: the format and the size as shown, with no pixel decoded.
    public func imageInfo(for data: Data) -> ImageInfo? { canDecode(data) ? ImageInfo.builtIn(data) : nil }

    /// True when `data` starts with a GIF87a or GIF89a signature.
    public func canDecode(_ data: Data) -> Bool { ImageFormat.detect(data) == .gif }

    /// Decodes a GIF (composited frames, loop count, delays); truncated files yield their complete frames.
    public func decode(_ data: Data, options: DecodeOptions) throws -> Image {
        try GIFDecoder(options: options).decode(data)
    }

    /// True for `.gif`.
    public func canEncode(to format: ImageFormat) -> Bool { format == .gif }

    /// Encodes `image` as GIF: animations keep their frames, delays and loop count; each frame
    /// is reduced to at most 256 colours; alpha below 128 becomes transparent.
    public func encode(_ image: Image, as format: ImageFormat, options: EncodeOptions) throws -> Data {
        guard format == .gif else {
            throw WebImageError(.unsupportedFormat, "The GIF coder cannot encode \(format.rawValue) images.")
        }
        return try GIFEncoder(options: options).encode(image)
    }

    /// True for GIF data, which decodes frame by frame as it arrives.
    public func canDecodeIncrementally(_ data: Data) -> Bool { canDecode(data) }

    /// A decoder that shows the frames complete so far.
    public func makeIncrementalDecoder(options: DecodeOptions) -> any IncrementalImageDecoding {
        GIFIncrementalDecoder(options: options)
    }
}
