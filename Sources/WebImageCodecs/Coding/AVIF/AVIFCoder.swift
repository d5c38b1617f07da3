import Foundation

/// Decodes and encodes AVIF with libavif: still images and image sequences (`avis`, animated,
/// frames decoded on request), 8/10/12-bit (reduced to 8-bit with rounding), alpha,
/// `clap`/`irot`/`imir` applied, grids, colour (an ICC profile or `nclx` values) converted to
/// sRGB, thumbnails resampled after decoding, and limits checked from the header.
///
/// AV1 has no reduced-size decode, so a thumbnail is decoded at full size and then resampled;
/// an image over ``DecodeLimits/maxPixels`` is refused even when a thumbnail is asked for.
public struct AVIFCoder: ImageCoding {
    /// An AVIF coder; stateless, so one instance serves every request.
    public init() {}

    /// True for data whose `ftyp` box names the `avif` or `avis` brand.
    public func canDecode(_ data: Data) -> Bool {
        ImageFormat.detect(data) == .avif
    }

    /// Reads the container (no AV1 data is decoded): the size as shown, after the clean aperture
    /// and rotation, and the number of frames of an image sequence.
    public func imageInfo(for data: Data) -> ImageInfo? {
        guard canDecode(data) else { return nil }
        return data.withUnsafeBytes { raw in
            try? AVIFDecoder.info(raw.bindMemory(to: UInt8.self))
        }
    }

    /// Decodes the primary image, or a sequence as an animation (its first frame only with
    /// ``DecodeOptions/firstFrameOnly``). The header is checked against `options.limits` before
    /// any pixel memory is allocated.
    public func decode(_ data: Data, options: DecodeOptions) throws -> Image {
        guard !data.isEmpty else { throw WebImageError.badData("The AVIF data is empty.") }
        return try data.withUnsafeBytes { raw in
            try AVIFDecoder.decode(raw.bindMemory(to: UInt8.self), data: data, options: options)
        }
    }

    /// True for `.avif`.
    public func canEncode(to format: ImageFormat) -> Bool { format == .avif }

    /// Encodes the first frame as a still AVIF: lossy 4:2:0 at `compressionQuality` (or the best
    /// quality within `maxFileSize`), or lossless 4:4:4 with `lossless`. Alpha is kept.
    /// Speed and threads are fixed for servers (see `AVIFEncoder`). With
    /// ``EncodeOptions/encoderProcess``, a large image is encoded in a child process.
    public func encode(_ image: Image, as format: ImageFormat, options: EncodeOptions) throws -> Data {
        guard format == .avif else {
            throw WebImageError(.unsupportedFormat, "The AVIF coder cannot encode \(format.rawValue) images.")
        }
        var still = options
        still.firstFrameOnly = true
        let bitmap = try still.encodeFrames(of: image).frame(at: 0).bitmap
        if options.lossless {
            return try AVIFEncoder.encode(bitmap, quality: 1, lossless: true, process: options.encoderProcess)
        }
        if let maxBytes = options.maxFileSize {
            return try EncodeQualitySearch.bestFitting(maxBytes: maxBytes) { quality in
                try AVIFEncoder.encode(bitmap, quality: Double(quality) / 100, lossless: false,
                                       process: options.encoderProcess)
            }
        }
        return try AVIFEncoder.encode(bitmap, quality: options.compressionQuality, lossless: false,
                                      process: options.encoderProcess)
    }
}
