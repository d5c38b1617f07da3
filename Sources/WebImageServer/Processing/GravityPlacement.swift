/// Where imgproxy puts a smaller box inside a larger one for a gravity: the crop window inside an
/// image, or an image inside an extended canvas. The result is clamped so the box stays inside.
/// Smart gravity is placed at the centre here, from sizes alone; ``ImageProcessor`` moves its crop
/// by the image's content (`SmartCrop`).
enum GravityPlacement {
    /// The top-left of an `inner` box placed in an `outer` one. Offsets of magnitude 1 or more are
    /// pixels (× `offsetScale`, the dpr for result crops and extension), smaller ones fractions of
    /// the outer size; edges measure inwards from their side; a focus point centres the box on it.
    static func origin(outer: (width: Int, height: Int), inner: (width: Int, height: Int),
                       gravity: ProcessingOptions.Gravity, offsetScale: Double) -> PixelPoint {
        var left: Int, top: Int
        if gravity.type == .focusPoint {
            left = Rounding.even(Double(outer.width) * gravity.x) - inner.width / 2
            top = Rounding.even(Double(outer.height) * gravity.y) - inner.height / 2
        } else {
            let offsetX = offset(gravity.type == .smart ? 0 : gravity.x, side: outer.width, scale: offsetScale)
            let offsetY = offset(gravity.type == .smart ? 0 : gravity.y, side: outer.height, scale: offsetScale)
            switch gravity.type {
            case .west, .northWest, .southWest: left = offsetX
            case .east, .northEast, .southEast: left = outer.width - inner.width - offsetX
            default: left = Rounding.even(Double(outer.width - inner.width + 1) / 2) + offsetX
            }
            switch gravity.type {
            case .north, .northEast, .northWest: top = offsetY
            case .south, .southEast, .southWest: top = outer.height - inner.height - offsetY
            default: top = Rounding.even(Double(outer.height - inner.height + 1) / 2) + offsetY
            }
        }
        return PixelPoint(x: max(0, min(left, outer.width - inner.width)),
                          y: max(0, min(top, outer.height - inner.height)))
    }

    private static func offset(_ value: Double, side: Int, scale: Double) -> Int {
        abs(value) >= 1 ? Rounding.even(value * scale) : Rounding.even(Double(side) * value)
    }
}

/// imgproxy's integer rounding, made total: results are clamped to ±``limit`` so that no size or
/// offset computed from a URL can overflow (or trap on conversion) however large its numbers are.
enum Rounding {
    /// The largest magnitude any computed size or position takes (2³¹ − 1).
    static let limit = Double(Int32.max)

    /// Half away from zero (Go's `math.Round`).
    static func nearest(_ value: Double) -> Int { clamped(value.rounded(.toNearestOrAwayFromZero)) }

    /// Half to even (Go's `math.RoundToEven`).
    static func even(_ value: Double) -> Int { clamped(value.rounded(.toNearestOrEven)) }

    private static func clamped(_ value: Double) -> Int {
        guard !value.isNaN else { return 0 }
        return Int(min(max(value, -limit), limit))
    }
}
