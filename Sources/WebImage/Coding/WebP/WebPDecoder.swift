import CWebP
import Foundation

/// Decodes still WebP images (lossy, lossless, with or without alpha) straight into a ``Bitmap``.
///
/// Thumbnails and byte budgets use libwebp's own scaler, which shrinks row by row while decoding,
/// so no full-size buffer is ever made. EXIF orientation is applied last.
enum WebPDecoder {
    static func decode(_ bytes: UnsafeBufferPointer<UInt8>, features: WebPBitstreamFeatures,
                       options: DecodeOptions) throws -> Image {
        let stored = WebPBitstream.size(of: features)
        // A still image decodes without the container; a malformed one just has no orientation.
        let orientation = (try? WebPContainer(bytes))?.orientation ?? .up
        let displayedTarget = options.targetSize(for: WebPContainer.oriented(stored, orientation))
        let target = WebPContainer.oriented(displayedTarget, orientation)
        if stored.area > options.limits.maxPixels, options.allowsScaleDown {
            try options.limits.check(target, format: .webp)
        } else {
            try options.limits.check(stored, format: .webp)
        }
        let bitmap = try decodePixels(bytes, size: stored, target: target)
        return Image(bitmap: bitmap.applying(orientation), format: .webp, scale: options.scaleFactor,
                     decodeOptions: options)
    }

    /// Decodes the stored pixels of a `size` image, scaled by libwebp to `target`.
    static func decodePixels(_ bytes: UnsafeBufferPointer<UInt8>, size: PixelSize,
                             target: PixelSize) throws -> Bitmap {
        var config = WebPDecoderConfig()
        guard WebPInitDecoderConfig(&config) != 0 else {
            throw WebImageError.badData("libwebp rejected its decoder configuration (version mismatch).")
        }
        config.output.colorspace = MODE_RGBA
        config.output.is_external_memory = 1
        if target != size {
            config.options.use_scaling = 1
            config.options.scaled_width = Int32(target.width)
            config.options.scaled_height = Int32(target.height)
        }
        return try Bitmap(width: target.width, height: target.height) { buffer in
            config.output.u.RGBA.rgba = buffer.baseAddress
            config.output.u.RGBA.stride = Int32(target.width * 4)
            config.output.u.RGBA.size = buffer.count
            let status = WebPDecode(bytes.baseAddress, bytes.count, &config)
            WebPFreeDecBuffer(&config.output)
            guard status == VP8_STATUS_OK else {
                throw WebPBitstream.error(for: status, while: "decoding the \(size) image")
            }
        }
    }
}
