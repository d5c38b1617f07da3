import Foundation

/// Decodes bytes into an ``Image`` and encodes images back into bytes, for some set of formats.
///
/// Implementations must be thread-safe: one coder instance serves every request.
public protocol ImageCoding: Sendable {
    /// True when this coder wants to decode `data` (usually: the format sniffed from its bytes).
    func canDecode(_ data: Data) -> Bool
    /// Decodes `data`; throws ``WebImageError`` (``WebImageError/Code/badImageData`` for corrupt
    /// or truncated bytes, ``WebImageError/Code/imageTooLarge`` past the limits).
    func decode(_ data: Data, options: DecodeOptions) throws -> Image
    /// Reads `data`'s header without decoding pixels (format and shown size); `nil` when the
    /// coder cannot tell. Coders that do not implement it answer `nil`.
    func imageInfo(for data: Data) -> ImageInfo?
    /// True when this coder can produce `format`.
    func canEncode(to format: ImageFormat) -> Bool
    /// Encodes `image` as `format`.
    func encode(_ image: Image, as format: ImageFormat, options: EncodeOptions) throws -> Data
}

extension ImageCoding {
    /// The format to encode `image` in when none is named: its source format if this coder can
    /// write it, else GIF for animations, PNG when there is alpha, JPEG otherwise (SDWebImage's rule).
    public func defaultEncodingFormat(for image: Image) -> ImageFormat {
        if image.format != .undefined, canEncode(to: image.format) { return image.format }
        if image.isAnimated { return .gif }
        return image.hasAlpha ? .png : .jpeg
    }
}

/// A coder that can show an image while its bytes are still arriving.
public protocol ProgressiveImageCoding: ImageCoding {
    /// True when `data` (possibly just its first bytes) is a format this coder decodes incrementally.
    func canDecodeIncrementally(_ data: Data) -> Bool
    /// A fresh decoder for one download.
    func makeIncrementalDecoder(options: DecodeOptions) -> any IncrementalImageDecoding
}

/// The state of one incremental decode: feed it the growing buffer, ask for what is visible so far.
///
/// Not thread-safe; one download drives one decoder.
public protocol IncrementalImageDecoding: AnyObject {
    /// Replaces the buffer with `data` (all bytes received so far); `finished` when it is complete.
    func update(_ data: Data, finished: Bool)
    /// The image as far as it can be shown: `nil` until something is usable, a partial image
    /// (``Image/isPartial``) while data is missing, the complete image once finished.
    /// Throws only once finished data turns out to be bad.
    func currentImage() throws -> Image?
}
