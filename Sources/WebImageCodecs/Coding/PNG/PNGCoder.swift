import Foundation

/// Decodes PNG and APNG (every colour type, 16-bit, palette, transparency, EXIF orientation,
/// animation with full dispose/blend handling), encodes PNG and APNG, and shows non-interlaced
/// PNGs row by row while they download.
///
/// Like SDWebImage's APNG coder, it takes every PNG: a file with an `acTL` chunk before its image
/// data decodes as an animation, any other as a still image.
public struct PNGCoder: ProgressiveImageCoding {
    /// A PNG/APNG coder; stateless, so one instance serves every request.
    public init() {}

    /// Reads the header: the format and the size as shown, with no pixel decoded.
    public func imageInfo(for data: Data) -> ImageInfo? { canDecode(data) ? ImageInfo.builtIn(data) : nil }

    /// True for PNG and APNG data.
    public func canDecode(_ data: Data) -> Bool {
        let format = ImageFormat.detect(data)
        return format == .png || format == .apng
    }

    /// Decodes a PNG, or every frame of an APNG, applying any eXIf orientation.
    public func decode(_ data: Data, options: DecodeOptions) throws -> Image {
        guard !data.isEmpty else { throw WebImageError.badData("The PNG data is empty.") }
        return try data.withUnsafeBytes { raw in
            let bytes = raw.bindMemory(to: UInt8.self)
            let format = ImageFormat.detect(bytes)
            guard format == .png || format == .apng else {
                throw WebImageError.badData("The data (\(bytes.count) bytes) does not start with the PNG signature.")
            }
            if format == .apng {
                return try APNGDecoder.decodeImage(bytes, data: data, options: options)
            }
            return try PNGDecoder.decodeImage(bytes, options: options)
        }
    }

    /// True for `.png` and `.apng` (animations are written as APNG).
    public func canEncode(to format: ImageFormat) -> Bool { format == .png || format == .apng }

    /// A still image becomes a PNG; an animation (more than one frame after `options`) an APNG.
    public func encode(_ image: Image, as format: ImageFormat, options: EncodeOptions) throws -> Data {
        guard canEncode(to: format) else {
            throw WebImageError(.unsupportedFormat, "The PNG coder cannot encode \(format.rawValue).")
        }
        let frames = options.encodeFrames(of: image)
        if frames.isAnimated {
            return Data(try APNGEncoder.encode(frames))
        }
        return Data(try PNGEncoder.encode(try frames.frame(at: 0).bitmap))
    }

    /// True for PNG data, which decodes row by row as it arrives.
    public func canDecodeIncrementally(_ data: Data) -> Bool { canDecode(data) }

    /// A decoder that shows the rows received so far.
    public func makeIncrementalDecoder(options: DecodeOptions) -> any IncrementalImageDecoding {
        PNGIncrementalDecoder(options: options)
    }
}
