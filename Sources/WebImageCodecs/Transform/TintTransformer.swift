/// How ``TintTransformer`` combines the tint colour (the source) with the image (the
/// destination). Raw values are CoreGraphics' `CGBlendMode`, as printed in keys.
public enum TintBlendMode: Int32, Sendable, Hashable, CaseIterable {
    /// Tint over the image.
    case normal = 0
    /// Multiply the colours (darkens).
    case multiply = 1
    /// Inverse multiply (lightens).
    case screen = 2
    /// The darker of the two colours.
    case darken = 4
    /// The lighter of the two colours.
    case lighten = 5
    /// Clear everything.
    case clear = 16
    /// The tint replaces the image.
    case copy = 17
    /// The tint colour where the image is, with the image's alpha: a template tint (the default).
    case sourceIn = 18
    /// The tint where the image is not.
    case sourceOut = 19
    /// The tint over the image, only where the image is.
    case sourceAtop = 20
    /// The image over the tint.
    case destinationOver = 21
    /// The image, masked by the tint's alpha.
    case destinationIn = 22
    /// The image, masked by the inverse of the tint's alpha.
    case destinationOut = 23
    /// The image over the tint, only where the tint is.
    case destinationAtop = 24
    /// Each where the other is not.
    case xor = 25
}

/// Fills the image with a colour using a blend mode (`SDImageTintTransformer`); the default
/// `sourceIn` keeps the image's alpha and replaces its colour, like a template image.
///
/// Key: `SDImageTintTransformer(#ff000000,18)` (colour as `#aarrggbb`, blend mode).
public struct TintTransformer: ImageTransforming {
    /// The tint colour (straight alpha).
    public let color: RGBA
    /// How the colour is combined with the image.
    public let blendMode: TintBlendMode

    /// A tint with `color`, combined by `blendMode`.
    public init(color: RGBA, blendMode: TintBlendMode = .sourceIn) {
        self.color = color
        self.blendMode = blendMode
    }

    /// `SDImageTintTransformer(#aarrggbb,mode)`, as SDWebImage names it in cache keys.
    public var transformerKey: String {
        "SDImageTintTransformer(\(color.hexARGB),\(blendMode.rawValue))"
    }

    /// The tinted image, every frame.
    public func transform(_ image: Image, forKey key: String) -> Image? {
        let (color, mode) = (color, blendMode)
        return image.mappingFrames { Self.tint($0, color: color, mode: mode) }
    }

    /// `bitmap` with `color` blended onto every pixel.
    static func tint(_ bitmap: Bitmap, color: RGBA, mode: TintBlendMode) -> Bitmap {
        let sa = Float(color.a) / 255
        // Premultiplied tint, channels 0…255.
        let sr = Float(color.r) * sa, sg = Float(color.g) * sa, sb = Float(color.b) * sa
        return bitmap.pixels.withUnsafeBufferPointer { src in
            Bitmap(width: bitmap.width, height: bitmap.height) { out in
                var i = 0
                let count = src.count
                if mode == .sourceIn { // fast path: the tint's colour, alpha = tint alpha × image alpha
                    while i < count {
                        let a = Resampler.clamp8(Float(src[i &+ 3]) * sa)
                        let visible = a != 0
                        out[i] = visible ? color.r : 0; out[i &+ 1] = visible ? color.g : 0
                        out[i &+ 2] = visible ? color.b : 0; out[i &+ 3] = a
                        i &+= 4
                    }
                    return
                }
                while i < count {
                    let da = Float(src[i &+ 3]) / 255
                    let dr = Float(src[i]) * da, dg = Float(src[i &+ 1]) * da, db = Float(src[i &+ 2]) * da
                    let (r, g, b, a) = blend(source: (sr, sg, sb, sa), destination: (dr, dg, db, da), mode: mode)
                    PixelCompositing.storePremultiplied(r, g, b, a * 255, into: out, at: i)
                    i &+= 4
                }
            }
        }
    }

    /// One premultiplied pixel blend: colours 0…255 premultiplied, alphas 0…1; returns the same
    /// units. Porter–Duff modes use the coefficient form, separable modes the W3C formula.
    @inline(__always)
    static func blend(source s: (Float, Float, Float, Float), destination d: (Float, Float, Float, Float),
                      mode: TintBlendMode) -> (Float, Float, Float, Float) {
        let sa = s.3, da = d.3
        func porterDuff(_ fs: Float, _ fd: Float) -> (Float, Float, Float, Float) {
            (s.0 * fs + d.0 * fd, s.1 * fs + d.1 * fd, s.2 * fs + d.2 * fd, sa * fs + da * fd)
        }
        func separable(_ mix: (Float, Float) -> Float) -> (Float, Float, Float, Float) {
            // Straight colours 0…1 for the mixing function, then the W3C compositing formula.
            func channel(_ sc: Float, _ dc: Float) -> Float {
                let cs = sa > 0 ? sc / (255 * sa) : 0, cd = da > 0 ? dc / (255 * da) : 0
                return sc * (1 - da) + dc * (1 - sa) + 255 * sa * da * mix(cs, cd)
            }
            return (channel(s.0, d.0), channel(s.1, d.1), channel(s.2, d.2), sa + da - sa * da)
        }
        switch mode {
        case .normal: return porterDuff(1, 1 - sa)
        case .multiply: return separable { $0 * $1 }
        case .screen: return separable { $0 + $1 - $0 * $1 }
        case .darken: return separable { min($0, $1) }
        case .lighten: return separable { max($0, $1) }
        case .clear: return (0, 0, 0, 0)
        case .copy: return porterDuff(1, 0)
        case .sourceIn: return porterDuff(da, 0)
        case .sourceOut: return porterDuff(1 - da, 0)
        case .sourceAtop: return porterDuff(da, 1 - sa)
        case .destinationOver: return porterDuff(1 - da, 1)
        case .destinationIn: return porterDuff(0, sa)
        case .destinationOut: return porterDuff(0, 1 - sa)
        case .destinationAtop: return porterDuff(1 - da, sa)
        case .xor: return porterDuff(1 - da, 1 - sa)
        }
    }
}
