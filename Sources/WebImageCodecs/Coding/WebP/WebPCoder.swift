import CWebP
import Foundation

/// Decodes and encodes WebP with libwebp: lossy, lossless, alpha, animation, EXIF orientation,
/// thumbnails scaled inside the decoder, and progressive display of still images.
public struct WebPCoder: ProgressiveImageCoding {
    /// A WebP coder; stateless, so one instance serves every request.
    public init() {}

    /// Reads the header: the format and the size as shown, with no pixel decoded.
    public func imageInfo(for data: Data) -> ImageInfo? { canDecode(data) ? ImageInfo.builtIn(data) : nil }

    /// True when the bytes start with a WebP signature (`RIFF….WEBPVP8`).
    public func canDecode(_ data: Data) -> Bool {
        ImageFormat.detect(data) == .webp
    }

    /// Decodes a still or animated WebP. The header is checked against `options.limits` before
    /// any pixel memory is allocated.
    public func decode(_ data: Data, options: DecodeOptions) throws -> Image {
        guard !data.isEmpty else { throw WebImageError.badData("The WebP data is empty.") }
        return try data.withUnsafeBytes { raw in
            let bytes = raw.bindMemory(to: UInt8.self)
            let features = try WebPBitstream.features(of: bytes)
            if features.has_animation != 0 {
                return try WebPAnimationDecoder.decode(bytes, data: data, features: features, options: options)
            }
            return try WebPDecoder.decode(bytes, features: features, options: options)
        }
    }

    /// True for `.webp`.
    public func canEncode(to format: ImageFormat) -> Bool { format == .webp }

    /// Encodes as WebP: lossy at `compressionQuality` (or the best quality within `maxFileSize`),
    /// or lossless; several frames become an animation with the image's loop count and durations.
    public func encode(_ image: Image, as format: ImageFormat, options: EncodeOptions) throws -> Data {
        guard format == .webp else {
            throw WebImageError(.unsupportedFormat, "The WebP coder cannot encode \(format.rawValue) images.")
        }
        let frames = options.encodeFrames(of: image)
        let encode: (Float) throws -> Data = { quality in
            if frames.isAnimated {
                return try WebPAnimationEncoder.encode(frames, quality: quality, lossless: options.lossless)
            }
            return try WebPEncoder.encode(try frames.frame(at: 0).bitmap, quality: quality, lossless: options.lossless)
        }
        if let maxBytes = options.maxFileSize, !options.lossless {
            return try EncodeQualitySearch.bestFitting(maxBytes: maxBytes) { try encode(Float($0)) }
        }
        return try encode(options.lossless ? 75 : Float(options.compressionQuality * 100))
    }

    /// True for WebP data (animated files show nothing until complete).
    public func canDecodeIncrementally(_ data: Data) -> Bool { canDecode(data) }

    /// A decoder that shows the part of a still WebP received so far.
    public func makeIncrementalDecoder(options: DecodeOptions) -> any IncrementalImageDecoding {
        WebPIncrementalDecoder(options: options)
    }
}
