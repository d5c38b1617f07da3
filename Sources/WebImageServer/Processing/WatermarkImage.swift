import Foundation
import WebImage

/// The server's watermark, decoded once: its first frame's pixels and the server's base opacity
/// (which each URL's opacity multiplies).
struct WatermarkImage: Sendable {
    let bitmap: Bitmap
    /// The base opacity, above 0 and at most 1.
    let opacity: Double

    /// The most pixels a watermark may have (4096 × 4096), whatever the source limits allow.
    static let maxPixels = 4096 * 4096

    /// `data` decoded as a watermark of at most `maxPixels` (and ``maxPixels``) pixels; a
    /// ``URLConfigurationError`` naming `origin` (where the bytes came from) when they are not an
    /// image this server decodes or are too large.
    static func decode(_ data: Data, origin: String, opacity: Double, maxPixels: Int,
                       coders: CodersManager) throws(URLConfigurationError) -> WatermarkImage {
        let limit = min(maxPixels, Self.maxPixels)
        guard let info = coders.imageInfo(for: data) else {
            throw URLConfigurationError("The watermark (\(origin)) is not an image this server decodes.")
        }
        let size = info.pixelSize
        let (pixels, overflow) = max(0, size.width).multipliedReportingOverflow(by: max(0, size.height))
        guard !overflow, pixels <= limit else {
            throw URLConfigurationError("The watermark (\(origin)) is \(size.width)×\(size.height), over the limit of \(limit) pixels.")
        }
        var options = DecodeOptions.default
        options.firstFrameOnly = true
        options.limits.maxPixels = min(options.limits.maxPixels, limit)
        let image: Image
        do {
            image = try coders.decode(data, options: options)
        } catch {
            throw URLConfigurationError("The watermark (\(origin)) does not decode: \(error).")
        }
        let bitmap = image.bitmap
        guard bitmap.width > 0, bitmap.height > 0, bitmap.width * bitmap.height <= limit else {
            throw URLConfigurationError("The watermark (\(origin)) decoded to \(bitmap.width)×\(bitmap.height), not within 1–\(limit) pixels.")
        }
        return WatermarkImage(bitmap: bitmap, opacity: opacity)
    }
}
