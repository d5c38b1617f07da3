/// A rectangle with optionally rounded corners in pixel coordinates, used to compute
/// anti-aliased coverage from a signed distance (negative inside, positive outside).
struct RoundedRectShape {
    let centreX: Float, centreY: Float
    let halfWidth: Float, halfHeight: Float
    /// Corner radii: top-left, top-right, bottom-left, bottom-right (0 = square corner).
    let radii: (Float, Float, Float, Float)

    /// The rectangle `inset` pixels inside a `width`×`height` image, rounding `corners` with
    /// `radius` pixels (clamped to half the shorter side, as UIKit's rounded-rect path does).
    init(width: Int, height: Int, inset: Float, radius: Float, corners: ImageCorners) {
        centreX = Float(width) / 2
        centreY = Float(height) / 2
        halfWidth = centreX - inset
        halfHeight = centreY - inset
        let r = max(0, min(radius, halfWidth, halfHeight))
        radii = (corners.contains(.topLeft) ? r : 0, corners.contains(.topRight) ? r : 0,
                 corners.contains(.bottomLeft) ? r : 0, corners.contains(.bottomRight) ? r : 0)
    }

    /// The largest corner radius.
    var maxRadius: Float { max(radii.0, radii.1, radii.2, radii.3) }

    /// Signed distance from (`x`, `y`) to the outline: negative inside.
    @inline(__always)
    func signedDistance(x: Float, y: Float) -> Float {
        let dx = x - centreX, dy = y - centreY
        let radius = dx < 0 ? (dy < 0 ? radii.0 : radii.2) : (dy < 0 ? radii.1 : radii.3)
        let qx = abs(dx) - (halfWidth - radius), qy = abs(dy) - (halfHeight - radius)
        let ox = max(qx, 0), oy = max(qy, 0)
        let outside = (ox > 0 && oy > 0) ? (ox * ox + oy * oy).squareRoot() : max(ox, oy)
        return outside + min(max(qx, qy), 0) - radius
    }

    /// Fraction (0…1) of a pixel centred at (`x`, `y`) inside the shape grown by `grow` pixels.
    @inline(__always)
    func coverage(x: Float, y: Float, grow: Float = 0) -> Float {
        min(max(0.5 - (signedDistance(x: x, y: y) - grow), 0), 1)
    }
}
