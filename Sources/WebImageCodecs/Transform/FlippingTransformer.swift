/// Mirrors the image horizontally, vertically or both (`SDImageFlippingTransformer`).
///
/// Key: `SDImageFlippingTransformer(1,0)` (horizontal, vertical).
public struct FlippingTransformer: ImageTransforming {
    /// Mirror left to right.
    public let horizontal: Bool
    /// Mirror top to bottom.
    public let vertical: Bool

    /// A flip along either or both axes.
    public init(horizontal: Bool, vertical: Bool) {
        self.horizontal = horizontal
        self.vertical = vertical
    }

    /// `SDImageFlippingTransformer(h,v)`, as SDWebImage names it in cache keys.
    public var transformerKey: String {
        "SDImageFlippingTransformer(\(TransformKey.flag(horizontal)),\(TransformKey.flag(vertical)))"
    }

    /// The mirrored image, every frame.
    public func transform(_ image: Image, forKey key: String) -> Image? {
        guard horizontal || vertical else { return image }
        let (h, v) = (horizontal, vertical)
        return image.mappingFrames { Self.flip($0, horizontal: h, vertical: v) }
    }

    /// `bitmap` mirrored; whole pixels move as 32-bit words.
    static func flip(_ bitmap: Bitmap, horizontal: Bool, vertical: Bool) -> Bitmap {
        let width = bitmap.width, height = bitmap.height
        return bitmap.pixels.withUnsafeBytes { src in
            Bitmap(width: width, height: height) { out in
                let dst = UnsafeMutableRawBufferPointer(out)
                let rowBytes = width &* 4
                for y in 0..<height {
                    let srcRow = (vertical ? height &- 1 &- y : y) &* rowBytes
                    let dstRow = y &* rowBytes
                    if horizontal {
                        var s = srcRow &+ rowBytes &- 4
                        var d = dstRow
                        for _ in 0..<width {
                            dst.storeBytes(of: src.load(fromByteOffset: s, as: UInt32.self),
                                           toByteOffset: d, as: UInt32.self)
                            s &-= 4
                            d &+= 4
                        }
                    } else {
                        (dst.baseAddress! + dstRow).copyMemory(from: src.baseAddress! + srcRow,
                                                               byteCount: rowBytes)
                    }
                }
            }
        }
    }
}
