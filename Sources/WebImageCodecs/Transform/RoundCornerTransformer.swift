/// Rounds the corners, optionally drawing a border (`SDImageRoundCornerTransformer`).
///
/// As in SDWebImage, the picture is clipped to the rounded rectangle inset by the border width
/// and the border is stroked along the rounded rectangle inset by half of it; edges are
/// anti-aliased. Radius and border width are in points.
///
/// Key: `SDImageRoundCornerTransformer(50.000000,18446744073709551615,1.000000,#ff000000)`
/// (radius, corners, border width, border colour or `(null)`).
public struct RoundCornerTransformer: ImageTransforming {
    /// Corner radius in points.
    public let cornerRadius: Double
    /// Which corners are rounded.
    public let corners: ImageCorners
    /// Border width in points (0 = none).
    public let borderWidth: Double
    /// Border colour; `nil` draws no border (the picture is still inset by `borderWidth`).
    public let borderColor: RGBA?

    /// Rounded `corners` of `cornerRadius` points, with an optional border.
    public init(cornerRadius: Double, corners: ImageCorners = .all, borderWidth: Double = 0,
                borderColor: RGBA? = nil) {
        self.cornerRadius = cornerRadius
        self.corners = corners
        self.borderWidth = borderWidth
        self.borderColor = borderColor
    }

    /// `SDImageRoundCornerTransformer(radius,corners,width,colour)`, as SDWebImage names it.
    public var transformerKey: String {
        "SDImageRoundCornerTransformer(\(TransformKey.decimal(cornerRadius)),\(corners.rawValue),"
            + "\(TransformKey.decimal(borderWidth)),\(TransformKey.colour(borderColor)))"
    }

    /// The clipped (and bordered) image, every frame; nil for a radius or border that is not finite.
    public func transform(_ image: Image, forKey key: String) -> Image? {
        let radius = cornerRadius * image.scale, border = max(borderWidth, 0) * image.scale
        guard radius.isFinite, border.isFinite else { return nil }
        let (corners, color) = (corners, borderColor)
        return image.mappingFrames {
            Self.round($0, radius: Float(max(radius, 0)), corners: corners, border: Float(border),
                       borderColor: color)
        }
    }

    /// `bitmap` clipped to its rounded rectangle with an optional border, sizes in pixels.
    static func round(_ bitmap: Bitmap, radius: Float, corners: ImageCorners, border: Float,
                      borderColor: RGBA?) -> Bitmap {
        let width = bitmap.width, height = bitmap.height
        let clip = RoundedRectShape(width: width, height: height, inset: border, radius: radius, corners: corners)
        let stroke = RoundedRectShape(width: width, height: height, inset: border / 2, radius: radius, corners: corners)
        let drawsBorder = borderColor != nil && border > 0 && borderColor!.a > 0
        let bc = borderColor ?? .clear
        let ba = Float(bc.a) / 255
        let br = Float(bc.r) * ba, bg = Float(bc.g) * ba, bb = Float(bc.b) * ba
        // Rows and columns this far from every edge are untouched by corners and border.
        let margin = Int((border + clip.maxRadius).rounded(.up)) + 2
        return bitmap.pixels.withUnsafeBufferPointer { src in
            Bitmap(width: width, height: height) { out in
                for y in 0..<height {
                    let py = Float(y) + 0.5
                    let plainRow = y >= margin && y < height - margin
                    var x = 0
                    while x < width {
                        let o = (y &* width &+ x) &* 4
                        if plainRow && x == margin && width - 2 * margin > 0 {
                            let run = width - 2 * margin
                            (UnsafeMutableRawPointer(out.baseAddress!) + o)
                                .copyMemory(from: src.baseAddress! + o, byteCount: run * 4)
                            x += run
                            continue
                        }
                        let px = Float(x) + 0.5
                        let cover = clip.coverage(x: px, y: py)
                        let ia = Float(src[o &+ 3]) * cover
                        let f = ia / 255
                        var r = Float(src[o]) * f, g = Float(src[o &+ 1]) * f, b = Float(src[o &+ 2]) * f
                        var a = ia
                        if drawsBorder {
                            let band = stroke.coverage(x: px, y: py, grow: border / 2)
                                - stroke.coverage(x: px, y: py, grow: -border / 2)
                            if band > 0 {
                                let keep = 1 - ba * band
                                r = br * band + r * keep; g = bg * band + g * keep
                                b = bb * band + b * keep; a = 255 * ba * band + a * keep
                            }
                        }
                        PixelCompositing.storePremultiplied(r, g, b, a, into: out, at: o)
                        x &+= 1
                    }
                }
            }
        }
    }
}
