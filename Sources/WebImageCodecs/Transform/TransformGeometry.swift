import Foundation

/// A size in points (pixels ÷ the image's scale), as transformers take it.
public struct PointSize: Sendable, Hashable, CustomStringConvertible {
    /// Width in points.
    public var width: Double
    /// Height in points.
    public var height: Double

    /// A size of `width` × `height` points.
    public init(width: Double, height: Double) {
        self.width = width
        self.height = height
    }

    /// `{width,height}`, for logs and test failures.
    public var description: String { "{\(width),\(height)}" }
}

/// A rectangle in points, origin at the top-left of the image, y growing downwards.
public struct PointRect: Sendable, Hashable, CustomStringConvertible {
    /// Left edge in points.
    public var x: Double
    /// Top edge in points.
    public var y: Double
    /// Width in points.
    public var width: Double
    /// Height in points.
    public var height: Double

    /// A rectangle at (`x`, `y`) of `width` × `height` points.
    public init(x: Double, y: Double, width: Double, height: Double) {
        self.x = x
        self.y = y
        self.width = width
        self.height = height
    }

    /// `{x,y,width,height}`, for logs and test failures.
    public var description: String { "{\(x),\(y),\(width),\(height)}" }
}

/// Which corners ``RoundCornerTransformer`` rounds; the raw values are UIKit's `UIRectCorner`
/// (``all`` is every bit set, which is what SDWebImage prints in keys).
public struct ImageCorners: OptionSet, Sendable, Hashable {
    /// The corner bits (UIKit's `UIRectCorner` values).
    public let rawValue: UInt
    /// The corners whose bits are set in `rawValue`.
    public init(rawValue: UInt) { self.rawValue = rawValue }

    /// The top-left corner.
    public static let topLeft = ImageCorners(rawValue: 1 << 0)
    /// The top-right corner.
    public static let topRight = ImageCorners(rawValue: 1 << 1)
    /// The bottom-left corner.
    public static let bottomLeft = ImageCorners(rawValue: 1 << 2)
    /// The bottom-right corner.
    public static let bottomRight = ImageCorners(rawValue: 1 << 3)
    /// Every corner: `UInt.max`, printed `18446744073709551615` in keys.
    public static let all = ImageCorners(rawValue: .max)
}

/// Formatting shared by the transformer keys: C's `%f` (six decimals), as SDWebImage prints.
enum TransformKey {
    /// `value` as `%f` prints it: `50.000000`, `0.785398`, `-1.500000`.
    static func decimal(_ value: Double) -> String {
        String(format: "%f", value)
    }

    /// A flag as `%d` prints a BOOL: `1` or `0`.
    static func flag(_ value: Bool) -> String { value ? "1" : "0" }

    /// An optional colour as SDWebImage's `%@` of `sd_hexString`: `#aarrggbb`, or `(null)`.
    static func colour(_ colour: RGBA?) -> String { colour?.hexARGB ?? "(null)" }
}

/// Conversions from point geometry to whole pixels.
enum PixelGeometry {
    /// Largest side, in pixels, any transform output may have (sizes are also checked against
    /// the decode limits); keeps `Int` conversions of absurd parameters safe.
    static let maxSide = 1 << 20

    /// `points × scale` rounded to the nearest pixel; `nil` when not finite, below 1 or too big.
    static func pixels(_ points: Double, scale: Double) -> Int? {
        let value = (points * scale).rounded()
        guard value.isFinite, value >= 1, value <= Double(maxSide) else { return nil }
        return Int(value)
    }

    /// `size` in whole pixels at `scale`, or `nil` when a side is not a usable size.
    static func pixelSize(_ size: PointSize, scale: Double) -> PixelSize? {
        guard let width = pixels(size.width, scale: scale),
              let height = pixels(size.height, scale: scale) else { return nil }
        return PixelSize(width: width, height: height)
    }

    /// The smallest whole-pixel rectangle containing `rect × scale` (CoreGraphics' integral
    /// rect), intersected with a `bounds`-sized image; `nil` when empty or not finite.
    static func integralPixelRect(_ rect: PointRect, scale: Double, bounds: PixelSize)
        -> (x: Int, y: Int, width: Int, height: Int)? {
        let epsilon = 1e-6
        let left = (rect.x * scale + epsilon).rounded(.down)
        let top = (rect.y * scale + epsilon).rounded(.down)
        let right = ((rect.x + rect.width) * scale - epsilon).rounded(.up)
        let bottom = ((rect.y + rect.height) * scale - epsilon).rounded(.up)
        guard left.isFinite, top.isFinite, right.isFinite, bottom.isFinite,
              rect.width > 0, rect.height > 0 else { return nil }
        let x0 = max(left, 0), y0 = max(top, 0)
        let x1 = min(right, Double(bounds.width)), y1 = min(bottom, Double(bounds.height))
        guard x1 > x0, y1 > y0 else { return nil }
        return (Int(x0), Int(y0), Int(x1 - x0), Int(y1 - y0))
    }
}
