import Foundation
import WebImageCodecs

extension ImageServerURL {
    /// This URL asking for exactly `pixels` (`rs:TYPE:W:H`), for a view whose pixel size is known.
    public func sized(forPixels pixels: PixelSize, type: ResizingType = .fit) throws -> Self {
        try resize(type, width: pixels.width, height: pixels.height)
    }

    /// This URL asking for a view of `width` × `height` points at `scale` pixels per point: the
    /// points rounded up in `rs`, and `dpr:SCALE` (left out at scale 1) so the server makes
    /// `scale` times as many pixels. The same points at another scale share all but the `dpr`.
    /// A side of 0 means "from the other side"; `scale` is 0.01–20.
    public func sized(forPoints width: Double, _ height: Double, scale: Double,
                      type: ResizingType = .fit) throws -> Self {
        let w = try Self.points(width, "width"), h = try Self.points(height, "height")
        let sized = try resize(type, width: w, height: h)
        return scale == 1 ? sized : try sized.dpr(scale)
    }

    private static func points(_ value: Double, _ name: String) throws -> Int {
        guard value.isFinite, value >= 0, value <= Double(maximumDimension) else {
            throw WebImageError(.invalidURL, "A \(name) is 0–\(maximumDimension) points; got \(value).")
        }
        return Int(value.rounded(.up))
    }
}
