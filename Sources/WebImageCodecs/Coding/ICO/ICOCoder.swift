import Foundation

/// Decodes Windows icons and cursors (ICO, CUR): the largest entry, or for a thumbnail the
/// smallest entry that covers it. PNG entries decode with the library's PNG coder, bitmap
/// entries (with their AND mask) with gdk-pixbuf's ICO loader; every entry's place in the file
/// is checked first. Cursors decode as `.ico` images (the hot spot is not kept).
///
/// Encodes an icon of one PNG entry (`ICOEncoder`), at most 256×256: larger images are
/// refused unless `maxPixelSize` shrinks them to fit.
public struct ICOCoder: ImageCoding {
    /// An ICO coder; stateless, so one instance serves every request.
    public init() {}

    /// True for data starting with an ICO (`00 00 01 00`) or CUR (`00 00 02 00`) header with at
    /// least one plausible entry.
    public func canDecode(_ data: Data) -> Bool {
        ImageFormat.detect(data) == .ico
    }

    /// Reads the directory and the entries' headers (no pixel is decoded): the largest entry's size.
    public func imageInfo(for data: Data) -> ImageInfo? {
        guard canDecode(data) else { return nil }
        return data.withUnsafeBytes { raw in
            (try? ICODecoder.size(raw.bindMemory(to: UInt8.self))).map { ImageInfo(format: .ico, pixelSize: $0) }
        }
    }

    /// Decodes the entry chosen for `options` (see the type's description), resampled to the
    /// requested size.
    public func decode(_ data: Data, options: DecodeOptions) throws -> Image {
        guard canDecode(data) else {
            throw WebImageError.badData("The data (\(data.count) bytes) does not start with an ICO or CUR header.")
        }
        return try data.withUnsafeBytes { raw in try ICODecoder.decode(raw.bindMemory(to: UInt8.self), options: options) }
    }

    /// True for `.ico`.
    public func canEncode(to format: ImageFormat) -> Bool { format == .ico }

    /// Encodes the first frame (shrunk to `maxPixelSize` when set) as a PNG-in-ICO icon; throws
    /// ``WebImageError/Code/encodingFailed`` for a frame larger than 256×256.
    public func encode(_ image: Image, as format: ImageFormat, options: EncodeOptions) throws -> Data {
        guard format == .ico else {
            throw WebImageError(.unsupportedFormat, "The ICO coder cannot encode \(format.rawValue) images.")
        }
        var still = options
        still.firstFrameOnly = true
        return try ICOEncoder.encode(still.encodeFrames(of: image).frame(at: 0).bitmap)
    }
}
