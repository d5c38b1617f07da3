import Foundation

/// Placeholder for the GIF coder (being written).
public struct GIFCoder: ImageCoding {
    public init() {}
    public func canDecode(_ data: Data) -> Bool { false }
    public func decode(_ data: Data, options: DecodeOptions) throws -> Image {
        throw WebImageError(.unsupportedFormat, "GIF decoding is not available yet.")
    }
    public func canEncode(to format: ImageFormat) -> Bool { false }
    public func encode(_ image: Image, as format: ImageFormat, options: EncodeOptions) throws -> Data {
        throw WebImageError(.unsupportedFormat, "GIF encoding is not available yet.")
    }
}
