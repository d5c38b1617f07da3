import Foundation

/// Evan Wallace's ThumbHash: a placeholder of about 25 bytes that keeps more detail than a
/// BlurHash, the image's aspect ratio and its alpha.
///
/// Encoding and decoding follow the reference implementation (github.com/evanw/thumbhash), so
/// hashes made here decode anywhere and the reverse. A hash is bytes; ``base64(_:)`` and
/// ``bytes(base64:)`` convert to and from the base64 text it is usually stored as. A malformed hash
/// (too short, too long, impossible dimensions) or a decode size outside
/// ``PlaceholderLimits/maximumDecodeSide`` throws ``WebImageError/Code/badImageData``.
public enum ThumbHash {
    /// The longest side ``decode(_:maximumSide:)`` uses by default, as the reference does.
    public static let defaultDecodeSide = 32

    /// The hash of `bitmap` (straight alpha, as every ``Bitmap`` is). A bitmap with a side longer
    /// than 100 pixels is first shrunk to fit 100 × 100, as the reference requires.
    public static func encode(_ bitmap: Bitmap) -> [UInt8] {
        let source = PlaceholderInput.shrunk(bitmap)
        return source.withUnsafeBytes { ThumbHashEncoder(pixels: $0, width: source.width, height: source.height).hash() }
    }

    /// The picture `hash` holds, its longer side `maximumSide` pixels (1...1024, 32 by default) and
    /// the other set by the hash's aspect ratio, with the hash's alpha.
    public static func decode(_ hash: [UInt8], maximumSide: Int = defaultDecodeSide) throws -> Image {
        try PlaceholderInput.checkDecodeSize(width: maximumSide, height: maximumSide, hash: "ThumbHash")
        let parsed = try ThumbHashComponents(hash)
        let ratio = parsed.aspectRatio, side = Double(maximumSide)
        let width = ratio > 1 ? maximumSide : max(1, Int((side * ratio).rounded()))
        let height = ratio > 1 ? max(1, Int((side / ratio).rounded())) : maximumSide
        return Image(bitmap: parsed.render(width: width, height: height))
    }

    /// The picture `hash` holds at exactly `width` × `height` pixels (each 1...1024), with its alpha.
    public static func decode(_ hash: [UInt8], width: Int, height: Int) throws -> Image {
        try PlaceholderInput.checkDecodeSize(width: width, height: height, hash: "ThumbHash")
        return Image(bitmap: try ThumbHashComponents(hash).render(width: width, height: height))
    }

    /// The average colour `hash` stores, with its alpha.
    public static func averageColor(of hash: [UInt8]) throws -> RGBA {
        try ThumbHashComponents(hash).averageColor
    }

    /// The source's approximate aspect ratio (width / height) that `hash` stores.
    public static func aspectRatio(of hash: [UInt8]) throws -> Double {
        try ThumbHashComponents(hash).aspectRatio
    }

    /// `hash` as standard base64 with padding, the usual way to store it as text.
    public static func base64(_ hash: [UInt8]) -> String { Data(hash).base64EncodedString() }

    /// The bytes of a base64 hash (standard or URL-safe alphabet, padding optional); throws for
    /// text that is not base64 or is far longer than any hash.
    public static func bytes(base64 text: String) throws -> [UInt8] {
        guard text.utf8.count <= 64 else {
            throw WebImageError(.badImageData, "ThumbHash text is \(text.utf8.count) bytes; a hash is at most 64")
        }
        var standard = text.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        standard += String(repeating: "=", count: (4 - standard.utf8.count % 4) % 4)
        guard let data = Data(base64Encoded: standard) else {
            throw WebImageError(.badImageData, "ThumbHash \"\(text)\" is not base64")
        }
        return [UInt8](data)
    }
}
