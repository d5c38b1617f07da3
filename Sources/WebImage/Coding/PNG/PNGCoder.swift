import Foundation

/// Placeholder for the PNG coder (being written).
public struct PNGCoder: ImageCoding {
    public init() {}
    public func canDecode(_ data: Data) -> Bool { false }
    public func decode(_ data: Data, options: DecodeOptions) throws -> Image {
        throw WebImageError(.unsupportedFormat, "PNG decoding is not available yet.")
    }
    public func canEncode(to format: ImageFormat) -> Bool { false }
    public func encode(_ image: Image, as format: ImageFormat, options: EncodeOptions) throws -> Data {
        throw WebImageError(.unsupportedFormat, "PNG encoding is not available yet.")
    }
}
