/// A placeholder given as a BlurHash or ThumbHash: a few dozen bytes a server or an API sends
/// beside an image's URL (`webimage serve`'s `/info` computes both), decoded into a small picture
/// to show until the image itself arrives (`WebImageContext.placeholderHash`).
public struct PlaceholderHash: Sendable, Hashable {
    /// The hash and its algorithm.
    public enum Kind: Sendable, Hashable {
        /// A BlurHash string, with the contrast `punch` it is decoded with (above 0, 1 is neutral).
        case blurHash(String, punch: Double)
        /// A ThumbHash's bytes.
        case thumbHash([UInt8])
    }

    public var kind: Kind
    /// The size to decode at (each side 1...``PlaceholderLimits/maximumDecodeSide``); nil decodes
    /// a small picture for the view to scale up: 32 pixels on the longer side, a ThumbHash at its
    /// own aspect ratio, a BlurHash (which stores none) 32 × 32. A larger size costs more to
    /// decode on the calling thread and looks no sharper.
    public var pixelSize: PixelSize?

    public init(_ kind: Kind, pixelSize: PixelSize? = nil) {
        self.kind = kind
        self.pixelSize = pixelSize
    }

    /// A BlurHash placeholder.
    public static func blurHash(_ hash: String, punch: Double = 1, pixelSize: PixelSize? = nil) -> PlaceholderHash {
        PlaceholderHash(.blurHash(hash, punch: punch), pixelSize: pixelSize)
    }

    /// A ThumbHash placeholder from its bytes.
    public static func thumbHash(_ hash: [UInt8], pixelSize: PixelSize? = nil) -> PlaceholderHash {
        PlaceholderHash(.thumbHash(hash), pixelSize: pixelSize)
    }

    /// A ThumbHash placeholder from its base64 text (as `/info` answers it); throws
    /// ``WebImageError/Code/badImageData`` for text that is not one.
    public static func thumbHash(base64: String, pixelSize: PixelSize? = nil) throws -> PlaceholderHash {
        PlaceholderHash(.thumbHash(try ThumbHash.bytes(base64: base64)), pixelSize: pixelSize)
    }

    /// The picture the hash holds, at ``pixelSize`` or the small default; throws
    /// ``WebImageError/Code/badImageData`` for a malformed hash or a size out of range.
    public func decode() throws -> Image {
        switch kind {
        case .blurHash(let hash, let punch):
            let size = pixelSize ?? PixelSize(width: ThumbHash.defaultDecodeSide, height: ThumbHash.defaultDecodeSide)
            return try BlurHash.decode(hash, width: size.width, height: size.height, punch: punch)
        case .thumbHash(let hash):
            guard let size = pixelSize else { return try ThumbHash.decode(hash) }
            return try ThumbHash.decode(hash, width: size.width, height: size.height)
        }
    }
}
