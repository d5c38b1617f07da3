import Foundation

/// Rotates by an angle in radians, counter-clockwise as seen on screen
/// (`SDImageRotationTransformer`), sampling bilinearly; uncovered areas are clear.
///
/// Without `fitSize` the canvas keeps the image's size and the corners are cut off; with it the
/// canvas grows to the rotated bounding box (300×300 at 45° → 425×425).
///
/// Key: `SDImageRotationTransformer(0.785398,0)` (angle, fitSize).
public struct RotationTransformer: ImageTransforming {
    /// Counter-clockwise rotation in radians.
    public let angle: Double
    /// Grow the canvas so the whole rotated image fits.
    public let fitSize: Bool

    /// A rotation by `angle` radians, growing the canvas when `fitSize`.
    public init(angle: Double, fitSize: Bool = false) {
        self.angle = angle
        self.fitSize = fitSize
    }

    /// `SDImageRotationTransformer(angle,fit)`, as SDWebImage names it in cache keys.
    public var transformerKey: String {
        "SDImageRotationTransformer(\(TransformKey.decimal(angle)),\(TransformKey.flag(fitSize)))"
    }

    /// The rotated image, every frame; nil for an angle that is not finite or a canvas past the limits.
    public func transform(_ image: Image, forKey key: String) -> Image? {
        guard angle.isFinite else { return nil }
        let canvas = fitSize ? Self.boundingSize(of: image.pixelSize, angle: angle) : image.pixelSize
        guard let canvas, image.allowsTransformOutput(canvas) else { return nil }
        let turn = angle.truncatingRemainder(dividingBy: 2 * Double.pi)
        if abs(turn) < 1e-9, canvas == image.pixelSize { return image }
        let angle = self.angle
        return image.mappingFrames { Self.rotate($0, angle: angle, canvas: canvas) }
    }

    /// The whole-pixel bounding box of a `size` rectangle rotated by `angle`.
    static func boundingSize(of size: PixelSize, angle: Double) -> PixelSize? {
        let c = abs(cos(angle)), s = abs(sin(angle))
        let w = Double(size.width) * c + Double(size.height) * s
        let h = Double(size.width) * s + Double(size.height) * c
        // A hair of tolerance so 90° turns (cos ≈ 6e-17) do not gain a pixel.
        let width = (w - 1e-6).rounded(.up), height = (h - 1e-6).rounded(.up)
        guard width.isFinite, height.isFinite else { return nil }
        return PixelSize(width: max(Int(width), 1), height: max(Int(height), 1))
    }

    /// `bitmap` rotated about its centre onto a clear `canvas`, centres aligned.
    static func rotate(_ bitmap: Bitmap, angle: Double, canvas: PixelSize) -> Bitmap {
        let srcW = bitmap.width, srcH = bitmap.height
        // Inverse mapping: destination offset (u, v) from the canvas centre (y down) comes from
        // source offset (u·cos − v·sin, u·sin + v·cos) for a counter-clockwise turn on screen.
        let cosA = Float(cos(angle)), sinA = Float(sin(angle))
        let dstCX = Float(canvas.width) / 2, dstCY = Float(canvas.height) / 2
        let srcCX = Float(srcW) / 2, srcCY = Float(srcH) / 2
        return bitmap.pixels.withUnsafeBufferPointer { src in
            Bitmap(width: canvas.width, height: canvas.height) { out in
                for y in 0..<canvas.height {
                    let v = Float(y) + 0.5 - dstCY
                    let u0 = 0.5 - dstCX
                    for x in 0..<canvas.width {
                        let u = u0 + Float(x)
                        let sx = u * cosA - v * sinA + srcCX
                        let sy = u * sinA + v * cosA + srcCY
                        let (r, g, b, a) = PixelCompositing.sampleBilinear(
                            src, width: srcW, height: srcH, x: sx, y: sy)
                        PixelCompositing.storePremultiplied(r, g, b, a, into: out, at: (y &* canvas.width &+ x) &* 4)
                    }
                }
            }
        }
    }
}
