import Foundation

/// Decodes Windows icons and cursors (ICO, CUR): the largest entry, or for a thumbnail the
/// smallest entry that covers it. PNG entries decode with the library's PNG coder, bitmap
/// entries (with their AND mask) with gdk-pixbuf's ICO loader; every entry's place in the file
/// is checked first. Cursors decode as `.ico` images (the hot spot is not kept).
///
/// Decoding only.
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

    /// Always false: ICO encoding is not offered.
    public func canEncode(to format: ImageFormat) -> Bool { false }

    /// Throws ``WebImageError/Code/unsupportedFormat``: this coder decodes only.
    public func encode(_ image: Image, as format: ImageFormat, options: EncodeOptions) throws -> Data {
        throw WebImageError(.unsupportedFormat, "The ICO coder decodes only; it cannot encode \(format.rawValue) images.")
    }
}
