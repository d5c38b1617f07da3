/// The small bitmap a placeholder hash is computed from.
enum PlaceholderInput {
    /// The longest side a hash is computed at; ThumbHash's own limit, and more than BlurHash's few
    /// components can tell apart.
    static let maximumSide = 100

    /// `bitmap` itself when both sides are at most ``maximumSide``, else shrunk to fit it with
    /// its aspect ratio kept.
    static func shrunk(_ bitmap: Bitmap) -> Bitmap {
        guard bitmap.width > maximumSide || bitmap.height > maximumSide else { return bitmap }
        let size = ImageSizing.scaledSize(bitmap.size, toFit: PixelSize(width: maximumSide, height: maximumSide),
                                          preserveAspectRatio: true, allowUpscale: false)
        return Resampler.resize(bitmap, to: size)
    }

    /// Throws unless `width` × `height` is a size a placeholder may be decoded at.
    static func checkDecodeSize(width: Int, height: Int, hash: String) throws {
        guard (1...PlaceholderLimits.maximumDecodeSide).contains(width),
              (1...PlaceholderLimits.maximumDecodeSide).contains(height) else {
            throw WebImageError(.badImageData, "\(hash) placeholder size \(width)x\(height) is outside "
                + "1...\(PlaceholderLimits.maximumDecodeSide) on a side")
        }
    }
}

/// Bounds on placeholder hashes.
public enum PlaceholderLimits {
    /// The largest side, in pixels, a BlurHash or ThumbHash decodes to. Placeholders are blurry
    /// by nature: decode small and let the view scale up.
    public static let maximumDecodeSide = 1024
}
