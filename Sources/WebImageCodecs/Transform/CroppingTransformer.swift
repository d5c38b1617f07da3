/// Crops to a rectangle in points (`SDImageCroppingTransformer`).
///
/// As CoreGraphics does, the rectangle is first expanded to whole pixels and then intersected
/// with the image, so a rectangle reaching past an edge yields the part inside; a rectangle
/// entirely outside (or empty) fails, and the caller keeps the original.
///
/// Key: `SDImageCroppingTransformer({50.000000,10.000000,200.000000,200.000000})`.
public struct CroppingTransformer: ImageTransforming {
    /// The rectangle to keep, in points from the top-left corner.
    public let rect: PointRect

    /// A crop to `rect`, in points from the top-left corner.
    public init(rect: PointRect) {
        self.rect = rect
    }

    /// `SDImageCroppingTransformer({x,y,w,h})`, as SDWebImage names it in cache keys.
    public var transformerKey: String {
        "SDImageCroppingTransformer({\(TransformKey.decimal(rect.x)),\(TransformKey.decimal(rect.y)),"
            + "\(TransformKey.decimal(rect.width)),\(TransformKey.decimal(rect.height))})"
    }

    /// The part of the image inside `rect`; nil when none of it is.
    public func transform(_ image: Image, forKey key: String) -> Image? {
        guard let area = PixelGeometry.integralPixelRect(rect, scale: image.scale, bounds: image.pixelSize)
        else { return nil }
        if area.x == 0, area.y == 0, area.width == image.width, area.height == image.height {
            return image
        }
        return image.mappingFrames { Self.crop($0, x: area.x, y: area.y, width: area.width, height: area.height) }
    }

    /// The `width`×`height` pixels of `bitmap` starting at (`x`, `y`); the area must lie inside.
    static func crop(_ bitmap: Bitmap, x: Int, y: Int, width: Int, height: Int) -> Bitmap {
        bitmap.pixels.withUnsafeBufferPointer { src in
            Bitmap(width: width, height: height) { out in
                let rowBytes = width * 4
                for row in 0..<height {
                    let from = ((y + row) * bitmap.width + x) * 4
                    UnsafeMutableRawPointer(out.baseAddress! + row * rowBytes)
                        .copyMemory(from: src.baseAddress! + from, byteCount: rowBytes)
                }
            }
        }
    }
}
