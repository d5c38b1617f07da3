import CWebP
import Foundation

/// Encodes one ``Bitmap`` as a still WebP, lossy or lossless, keeping alpha.
enum WebPEncoder {
    /// Encodes `bitmap`; `quality` is 0–100 (for lossless it is the compression effort).
    /// Lossless output keeps even the colour under fully transparent pixels, so it round-trips exactly.
    static func encode(_ bitmap: Bitmap, quality: Float, lossless: Bool) throws -> Data {
        guard bitmap.width <= Int(WEBP_MAX_DIMENSION), bitmap.height <= Int(WEBP_MAX_DIMENSION) else {
            throw WebImageError(.encodingFailed,
                "WebP images are at most \(WEBP_MAX_DIMENSION) pixels a side; this one is \(bitmap.size). Set EncodeOptions.maxPixelSize to shrink it.")
        }
        var config = WebPConfig()
        guard WebPConfigInit(&config) != 0 else {
            throw WebImageError(.encodingFailed, "libwebp rejected its encoder configuration (version mismatch).")
        }
        config.lossless = lossless ? 1 : 0
        config.quality = min(max(quality, 0), 100)
        config.method = 4
        config.exact = lossless ? 1 : 0
        guard WebPValidateConfig(&config) != 0 else {
            throw WebImageError(.encodingFailed, "libwebp rejected the encoder settings (quality \(quality)).")
        }

        var picture = WebPPicture()
        guard WebPPictureInit(&picture) != 0 else {
            throw WebImageError(.encodingFailed, "libwebp could not initialise a picture (version mismatch).")
        }
        picture.use_argb = lossless ? 1 : 0
        picture.width = Int32(bitmap.width)
        picture.height = Int32(bitmap.height)
        defer { WebPPictureFree(&picture) }
        // An opaque bitmap goes in without its alpha channel: libwebp then neither stores an
        // alpha plane nor scans one to find it is all opaque.
        let opaque = !bitmap.hasAlpha
        let imported = bitmap.pixels.withUnsafeBufferPointer {
            opaque ? WebPPictureImportRGBX(&picture, $0.baseAddress, Int32(bitmap.bytesPerRow))
                : WebPPictureImportRGBA(&picture, $0.baseAddress, Int32(bitmap.bytesPerRow))
        }
        guard imported != 0 else {
            throw WebImageError(.encodingFailed, "libwebp could not take the \(bitmap.size) pixels (out of memory).")
        }

        var writer = WebPMemoryWriter()
        WebPMemoryWriterInit(&writer)
        defer { WebPMemoryWriterClear(&writer) }
        let encoded = withUnsafeMutablePointer(to: &writer) { writerPointer in
            picture.writer = WebPMemoryWrite
            picture.custom_ptr = UnsafeMutableRawPointer(writerPointer)
            // Asked between rows of macroblocks: 0 stops the encode when the work was cancelled.
            picture.progress_hook = { _, _ in WorkCancellation.isCurrentCancelled ? 0 : 1 }
            return WebPEncode(&config, &picture)
        }
        if encoded == 0, picture.error_code == VP8_ENC_ERROR_USER_ABORT {
            throw WebImageError(.cancelled, "The WebP encode was cancelled.")
        }
        guard encoded != 0, let bytes = writer.mem, writer.size > 0 else {
            throw WebImageError(.encodingFailed,
                "libwebp failed to encode the \(bitmap.size) image (error \(picture.error_code.rawValue)).")
        }
        return Data(bytes: bytes, count: writer.size)
    }
}
