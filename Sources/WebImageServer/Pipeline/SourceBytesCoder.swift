import Foundation
import WebImage

/// The coder the server hands the image manager, whose part of a request is the source's bytes
/// (fetched once however many requests want them, kept on disk), not its pixels: the pixels are
/// decoded later in a worker slot, at the size each request plans (``PlannedSourceDecoder``).
///
/// "Decoding" here checks that the bytes are in a format this server decodes, so that anything
/// else fails (422) before it is cached, and stands in for the image with one pixel.
struct SourceBytesCoder: ImageCoding {
    let coders: CodersManager

    /// What the manager gets back instead of the source's pixels.
    static let standIn = Image(bitmap: Bitmap(width: 1, height: 1))

    func canDecode(_ data: Data) -> Bool { coders.canDecode(data) }

    func imageInfo(for data: Data) -> ImageInfo? { coders.imageInfo(for: data) }

    func decode(_ data: Data, options: DecodeOptions) throws -> Image {
        _ = try coders.checkedDecoder(for: data)
        return Self.standIn
    }

    func canEncode(to format: ImageFormat) -> Bool { false }

    func encode(_ image: Image, as format: ImageFormat, options: EncodeOptions) throws -> Data {
        throw WebImageError(.encodingFailed, "The server's source cache keeps the bytes it downloaded; it never encodes.")
    }
}
