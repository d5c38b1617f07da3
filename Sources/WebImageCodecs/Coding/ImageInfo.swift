import Foundation

/// What an image's header says before any pixel is decoded: its format and its size as shown.
///
/// Servers and tools read it to plan a decode (how small the decoder may go, whether a crop
/// applies) and to refuse a source over their limits without spending memory on it.
public struct ImageInfo: Sendable, Hashable {
    /// The container format.
    public var format: ImageFormat
    /// The size as shown: for a JPEG with an EXIF orientation of 5–8, width and height swapped.
    public var pixelSize: PixelSize
    /// How many frames the header declares, where the coder reads it without decoding (GIF image
    /// descriptors, WebP `ANMF` chunks, the APNG `acTL` count, AVIF sequences, JPEG XL frame
    /// headers); `nil` when the coder does not tell.
    public var frameCount: Int?
    /// The EXIF orientation the header declares (JPEG and TIFF; `.up` for other formats), which
    /// the decoders apply.
    public var orientation: EXIFOrientation

    /// An info with every field given.
    public init(format: ImageFormat, pixelSize: PixelSize, frameCount: Int? = nil, orientation: EXIFOrientation = .up) {
        self.format = format
        self.pixelSize = pixelSize
        self.frameCount = frameCount
        self.orientation = orientation
    }
}

extension ImageCoding {
    /// Without an implementation of its own, a coder cannot tell a header: `nil`.
    public func imageInfo(for data: Data) -> ImageInfo? { nil }
}

extension ImageInfo {
    /// Reads the header of one of the built-in formats (JPEG, PNG/APNG, WebP, GIF); `nil` for
    /// other formats and for bytes too short or damaged to hold a header.
    static func builtIn(_ data: Data) -> ImageInfo? {
        data.withUnsafeBytes { raw -> ImageInfo? in
            let b = raw.bindMemory(to: UInt8.self)
            let format = ImageFormat.detect(b)
            var orientation = EXIFOrientation.up
            func size() -> PixelSize? {
                switch format {
                case .jpeg:
                    guard let header = try? JPEGHeader.parse(b) else { return nil }
                    orientation = header.orientation
                    let stored = header.size
                    return header.orientation.swapsDimensions
                        ? PixelSize(width: stored.height, height: stored.width) : stored
                case .png, .apng:
                    // The IHDR chunk follows the 8-byte signature: length, type, width, height.
                    guard b.count >= 24 else { return nil }
                    return PixelSize(width: Int(bigEndian32(b, 16)), height: Int(bigEndian32(b, 20)))
                case .webp:
                    return (try? WebPBitstream.features(of: b)).map(WebPBitstream.size(of:))
                case .gif:
                    // The logical screen descriptor follows the 6-byte signature, little-endian.
                    guard b.count >= 10 else { return nil }
                    return PixelSize(width: Int(b[6]) | Int(b[7]) << 8, height: Int(b[8]) | Int(b[9]) << 8)
                default:
                    return nil
                }
            }
            guard let size = size(), size.width > 0, size.height > 0 else { return nil }
            return ImageInfo(format: format, pixelSize: size, frameCount: DeclaredFrameCount.of(b, format: format),
                             orientation: orientation)
        }
    }

    private static func bigEndian32(_ b: UnsafeBufferPointer<UInt8>, _ at: Int) -> UInt32 {
        UInt32(b[at]) << 24 | UInt32(b[at + 1]) << 16 | UInt32(b[at + 2]) << 8 | UInt32(b[at + 3])
    }
}
