/// A size in whole pixels.
public struct PixelSize: Sendable, Hashable, CustomStringConvertible {
    /// Width in pixels.
    public var width: Int
    /// Height in pixels.
    public var height: Int

    /// A size of `width` × `height` pixels.
    public init(width: Int, height: Int) {
        self.width = width
        self.height = height
    }

    /// No pixels: an empty size, also meaning "no thumbnail box".
    public static let zero = PixelSize(width: 0, height: 0)

    /// Number of pixels (`width * height`), saturating instead of overflowing.
    public var area: Int {
        let (product, overflow) = width.multipliedReportingOverflow(by: height)
        return overflow ? .max : product
    }

    /// True when either side is zero or negative.
    public var isEmpty: Bool { width <= 0 || height <= 0 }

    /// `WIDTHxHEIGHT`, e.g. `256x256`.
    public var description: String { "\(width)x\(height)" }
}
