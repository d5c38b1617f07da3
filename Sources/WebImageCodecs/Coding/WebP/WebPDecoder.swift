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
        // A still image decodes without the container; a malformed one just has no orientation
        // and no profile.
        let container = try? WebPContainer(bytes)
        let orientation = container?.orientation ?? .up
        let color = ColorManagement.plan(icc: container?.iccProfile, source: .rgb, options: options)
        let displayedTarget = options.targetSize(for: orientation.turning(stored))
        let target = orientation.turning(displayedTarget)
        try checkLimits(features, target: target, options: options)
        let bitmap = try decodePixels(bytes, size: stored, target: target, color: color,
                                      opaque: features.has_alpha == 0)
        return Image(bitmap: bitmap.applying(orientation), format: .webp, scale: options.scaleFactor,
                     decodeOptions: options, colorProfile: color.profile)
    }

    /// Throws when decoding `features` at `target` would pass `options.limits`.
    ///
    /// An image over the pixel limit may still be decoded scaled down when the caller allows it,
    /// as long as libwebp's own full-size working memory fits the limit's byte equivalent: a lossy
    /// image scales row by row, but its alpha plane takes 1 byte per pixel and a lossless image
    /// is always decoded whole at 4 bytes per pixel.
    static func checkLimits(_ features: WebPBitstreamFeatures, target: PixelSize,
                            options: DecodeOptions) throws {
        let stored = WebPBitstream.size(of: features)
        let limits = options.limits
        guard stored.area > limits.maxPixels, options.allowsScaleDown else {
            return try limits.check(stored, format: .webp)
        }
        let isLossy = features.format == 1
        let workingBytesPerPixel = isLossy ? (features.has_alpha != 0 ? 1 : 0) : 4
        let (workingBytes, overflow) = stored.area.multipliedReportingOverflow(by: workingBytesPerPixel)
        let (allowedBytes, allowedOverflow) = limits.maxPixels.multipliedReportingOverflow(by: 4)
        if overflow || (!allowedOverflow && workingBytes > allowedBytes) {
            throw WebImageError(.imageTooLarge,
                "The \(isLossy ? "lossy" : "lossless") WebP image is \(stored) (\(stored.area) pixels); libwebp needs \(workingBytes) bytes to scale it, over the decode limit of \(limits.maxPixels) pixels. Raise DecodeLimits.maxPixels to decode it.")
        }
        try limits.check(target, format: .webp)
    }

    /// The bytes libwebp is given at a time, between two looks at the thread's ``WorkCancellation``.
    static let bytesBetweenChecks = 32 * 1024

    /// Decodes the stored pixels of a `size` image, scaled by libwebp to `target`, converted by
    /// `color`. The file is fed to libwebp's incremental decoder a block at a time, so work asked
    /// to stop (``WorkCancellation``) ends between blocks.
    ///
    /// `opaque`: the file says it has no alpha (no VP8X alpha flag, no VP8L alpha hint), so every
    /// pixel is shown opaque, as libwebp's own `dwebp` shows it. A lossless bitstream still
    /// carries alpha values (a palette index past the palette's end decodes transparent).
    static func decodePixels(_ bytes: UnsafeBufferPointer<UInt8>, size: PixelSize,
                             target: PixelSize, color: ColorManagement.Plan = .none,
                             opaque: Bool = false) throws -> Bitmap {
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
            let status = try decodeInBlocks(bytes, config: &config)
            WebPFreeDecBuffer(&config.output)
            guard status == VP8_STATUS_OK else {
                throw WebPBitstream.error(for: status, while: "decoding the \(size) image")
            }
            if opaque {
                for alpha in stride(from: 3, to: buffer.count, by: 4) { buffer[alpha] = 255 }
            }
            color.apply(buffer)
        }
    }

    /// Runs libwebp's incremental decoder over `bytes` (which stay where they are: each call sees
    /// a longer prefix), checking the thread's ``WorkCancellation`` before each block; the final
    /// status, with a file that ends early reported as `VP8_STATUS_NOT_ENOUGH_DATA` — also one
    /// whose RIFF header declares more bytes than there are, as libwebp's one-call decode does.
    private static func decodeInBlocks(_ bytes: UnsafeBufferPointer<UInt8>,
                                       config: inout WebPDecoderConfig) throws -> VP8StatusCode {
        if bytes.count >= 8, bytes[0] == 0x52, bytes[1] == 0x49, bytes[2] == 0x46, bytes[3] == 0x46 {
            let declared = (0..<4).reduce(0) { $0 | Int(bytes[4 + $1]) << (8 * $1) }
            if declared + 8 > bytes.count { return VP8_STATUS_NOT_ENOUGH_DATA }
        }
        guard let decoder = WebPIDecode(nil, 0, &config) else {
            throw WebImageError.badData("libwebp could not start a decoder (out of memory).")
        }
        defer { WebPIDelete(decoder) }
        var given = 0
        var status = VP8_STATUS_SUSPENDED
        while status == VP8_STATUS_SUSPENDED && given < bytes.count {
            try WorkCancellation.checkCurrent()
            given = min(given + bytesBetweenChecks, bytes.count)
            status = WebPIUpdate(decoder, bytes.baseAddress, given)
        }
        return status == VP8_STATUS_SUSPENDED ? VP8_STATUS_NOT_ENOUGH_DATA : status
    }
}
