import Foundation

/// Decodes and encodes JPEG XL with libjxl: still images and animations (frames decoded on
/// demand), 8-bit, 16-bit and float sources reduced to RGBA8 with rounding, alpha, grey, the
/// orientation applied, colour converted to sRGB, thumbnails resampled after decoding, and limits
/// checked from the header.
///
/// libjxl has no reduced-size decode, so a thumbnail is decoded at full size and then resampled;
/// an image over ``DecodeLimits/maxPixels`` is refused even when a thumbnail is asked for.
public struct JXLCoder: ImageCoding {
    /// A JPEG XL coder; stateless, so one instance serves every request.
    public init() {}

    /// True for data that starts with the JPEG XL codestream (`FF 0A`) or container signature.
    public func canDecode(_ data: Data) -> Bool {
        ImageFormat.detect(data) == .jpegXL
    }

    /// Reads the header (no pixels are decoded): the size as shown, after the orientation, and for
    /// an animation the number of frames, from the frame headers.
    public func imageInfo(for data: Data) -> ImageInfo? {
        guard canDecode(data) else { return nil }
        return data.withUnsafeBytes { raw in
            try? JXLDecoder.info(raw.bindMemory(to: UInt8.self))
        }
    }

    /// Decodes a still image, or an animation whose frames after the first are decoded when asked
    /// for (all at once with ``DecodeOptions/preloadsAllFrames``). The header is checked against
    /// `options.limits` before any pixel memory is allocated.
    public func decode(_ data: Data, options: DecodeOptions) throws -> Image {
        guard !data.isEmpty else { throw WebImageError.badData("The JPEG XL data is empty.") }
        return try data.withUnsafeBytes { raw in
            try JXLDecoder.decode(raw.bindMemory(to: UInt8.self), data: data, options: options)
        }
    }

    /// True for `.jpegXL`.
    public func canEncode(to format: ImageFormat) -> Bool { format == .jpegXL }

    /// Encodes the first frame as a still JPEG XL: lossy at `compressionQuality` (or the best
    /// quality within `maxFileSize`), mapped to a butteraugli distance on cjxl's quality scale
    /// (1 → distance 0.1, 0.9 → 1, visually lossless), or lossless with `lossless`. Alpha is
    /// kept. The effort is fixed for servers (see `JXLEncoder`).
    public func encode(_ image: Image, as format: ImageFormat, options: EncodeOptions) throws -> Data {
        guard format == .jpegXL else {
            throw WebImageError(.unsupportedFormat, "The JPEG XL coder cannot encode \(format.rawValue) images.")
        }
        var still = options
        still.firstFrameOnly = true
        let bitmap = try still.encodeFrames(of: image).frame(at: 0).bitmap
        if options.lossless {
            return try JXLEncoder.encode(bitmap, quality: 100, lossless: true)
        }
        if let maxBytes = options.maxFileSize {
            return try EncodeQualitySearch.bestFitting(maxBytes: maxBytes) { quality in
                try JXLEncoder.encode(bitmap, quality: Double(quality), lossless: false)
            }
        }
        return try JXLEncoder.encode(bitmap, quality: options.compressionQuality * 100, lossless: false)
    }
}
