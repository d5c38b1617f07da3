extension Bitmap {
    /// This bitmap composited over an opaque `background`: every pixel's colour blended with it by
    /// the pixel's alpha, and every alpha 255. The bitmap itself when it has no transparency.
    public func flattened(over background: RGBA) -> Bitmap {
        guard hasAlpha else { return self }
        return withUnsafeBytes { source in
            Bitmap(width: width, height: height) { out in
                Self.flatten(source.baseAddress!, into: out.baseAddress!, pixelCount: width * height, over: background)
            }
        }
    }

    /// Writes `pixelCount` straight-alpha RGBA pixels from `source` into `out`, composited over
    /// `background` (its alpha is ignored: it counts as opaque). `out` may be `source`.
    package static func flatten(_ source: UnsafePointer<UInt8>, into out: UnsafeMutablePointer<UInt8>,
                                pixelCount: Int, over background: RGBA) {
        let r = UInt32(background.r), g = UInt32(background.g), b = UInt32(background.b)
        var i = 0
        let end = pixelCount &* 4
        while i < end {
            let a = UInt32(source[i &+ 3]), inverse = 255 &- a
            out[i] = blend(UInt32(source[i]), r, a, inverse)
            out[i &+ 1] = blend(UInt32(source[i &+ 1]), g, a, inverse)
            out[i &+ 2] = blend(UInt32(source[i &+ 2]), b, a, inverse)
            out[i &+ 3] = 255
            i &+= 4
        }
    }

    /// `colour` over `background` with `alpha`, rounded.
    @inline(__always)
    fileprivate static func blend(_ colour: UInt32, _ background: UInt32, _ alpha: UInt32, _ inverse: UInt32) -> UInt8 {
        UInt8(truncatingIfNeeded: (colour &* alpha &+ background &* inverse &+ 127) / 255)
    }
}

extension RGBA {
    /// This colour composited over an opaque `background` (its alpha is ignored), as
    /// ``Bitmap/flattened(over:)`` composites each pixel.
    public func flattened(over background: RGBA) -> RGBA {
        let alpha = UInt32(a), inverse = 255 - alpha
        return RGBA(r: Bitmap.blend(UInt32(r), UInt32(background.r), alpha, inverse),
                    g: Bitmap.blend(UInt32(g), UInt32(background.g), alpha, inverse),
                    b: Bitmap.blend(UInt32(b), UInt32(background.b), alpha, inverse))
    }
}
