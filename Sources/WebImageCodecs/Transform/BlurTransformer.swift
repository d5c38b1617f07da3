import Foundation

/// Blurs with an approximate Gaussian (`SDImageBlurTransformer`); radius in points, 0 = none.
///
/// Uses SDWebImage's recipe so results look alike: the radius × scale (at least 2) becomes an odd
/// box width `floor((r · 3·√(2π) / 4 + 0.5) / 2) | 1`, applied three times (fewer below 1.5 px).
///
/// Key: `SDImageBlurTransformer(25.000000)`.
public struct BlurTransformer: ImageTransforming {
    /// Blur radius in points.
    public let radius: Double

    /// A blur of `radius` points.
    public init(radius: Double) {
        self.radius = radius
    }

    /// `SDImageBlurTransformer(radius)`, as SDWebImage names it in cache keys.
    public var transformerKey: String {
        "SDImageBlurTransformer(\(TransformKey.decimal(radius)))"
    }

    /// The blurred image; nil for a radius that is not finite.
    public func transform(_ image: Image, forKey key: String) -> Image? {
        guard radius.isFinite else { return nil }
        let pixels = radius * image.scale
        guard pixels > Double(Float.ulpOfOne) else { return image }
        let (kernel, passes) = Self.boxKernel(radiusInPixels: pixels, imageSize: image.pixelSize)
        return image.mappingFrames { BoxBlur.blur($0, kernel: kernel, passes: passes) }
    }

    /// The odd box width and pass count for a radius in pixels; the width is capped near twice
    /// the image's longer side, past which a bigger box changes nothing visible.
    static func boxKernel(radiusInPixels pixels: Double, imageSize: PixelSize) -> (kernel: Int, passes: Int) {
        let passes = pixels < 0.5 ? 1 : (pixels < 1.5 ? 2 : 3)
        let input = max(pixels, 2)
        let cap = Double(2 * max(imageSize.width, imageSize.height) + 1)
        let width = min((input * 3 * (2 * Double.pi).squareRoot() / 4 + 0.5) / 2, cap).rounded(.down)
        return (Int(width) | 1, passes)
    }
}
