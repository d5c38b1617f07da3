import WebImage

/// A position in whole pixels, origin at the top-left, y growing downwards.
public struct PixelPoint: Sendable, Hashable, CustomStringConvertible {
    /// Pixels from the left edge.
    public var x: Int
    /// Pixels from the top edge.
    public var y: Int

    /// The point `x` pixels right of and `y` pixels below the top-left corner.
    public init(x: Int, y: Int) {
        self.x = x
        self.y = y
    }

    /// The top-left corner.
    public static let zero = PixelPoint(x: 0, y: 0)

    /// `(x,y)`, for logs and test failures.
    public var description: String { "(\(x),\(y))" }
}

/// A rectangle in whole pixels, such as the part of an image a crop keeps.
public struct PixelRect: Sendable, Hashable, CustomStringConvertible {
    /// The left edge, in pixels.
    public var x: Int
    /// The top edge, in pixels.
    public var y: Int
    /// The width, in pixels.
    public var width: Int
    /// The height, in pixels.
    public var height: Int

    /// A rectangle of `width` × `height` pixels with its top-left corner at (`x`, `y`).
    public init(x: Int, y: Int, width: Int, height: Int) {
        self.x = x
        self.y = y
        self.width = width
        self.height = height
    }

    /// A rectangle of `size` with its top-left corner at `origin`.
    public init(origin: PixelPoint, size: PixelSize) {
        self.init(x: origin.x, y: origin.y, width: size.width, height: size.height)
    }

    /// The top-left corner.
    public var origin: PixelPoint { PixelPoint(x: x, y: y) }
    /// The width and height.
    public var size: PixelSize { PixelSize(width: width, height: height) }
    /// The same rectangle in points at scale 1, as the library's transformers take it.
    public var pointRect: PointRect {
        PointRect(x: Double(x), y: Double(y), width: Double(width), height: Double(height))
    }

    /// `WxH+X+Y`, for logs and test failures.
    public var description: String { "\(width)x\(height)+\(x)+\(y)" }
}
