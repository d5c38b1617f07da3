import Foundation

/// Decodes and encodes AVIF with libavif: still images and image sequences (`avis`, animated,
/// frames decoded on request; an animation is encoded as one), 8/10/12-bit (reduced to 8-bit
/// with rounding), alpha, `clap`/`irot`/`imir` applied, grids, colour (an ICC profile or `nclx`
/// values) converted to sRGB, thumbnails resampled after decoding, and limits checked from the
/// header.
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

    /// Encodes a still AVIF: lossy 4:2:0 at `compressionQuality` (or the best quality within
    /// `maxFileSize`), or lossless 4:4:4 with `lossless`. Alpha is kept. Speed and threads are
    /// fixed for servers (see `AVIFEncoder`). With ``EncodeOptions/encoderProcess``, a large image
    /// is encoded in a child process.
    ///
    /// An animation (unless ``EncodeOptions/firstFrameOnly``) is written as an AVIF image sequence
    /// with the same settings, in this process, its frames' durations kept to the millisecond;
    /// the sequence loops forever (libavif 0.11 writes no loop count). Work stops between frames
    /// when the thread's ``WorkCancellation`` is cancelled.
    public func encode(_ image: Image, as format: ImageFormat, options: EncodeOptions) throws -> Data {
        guard format == .avif else {
            throw WebImageError(.unsupportedFormat, "The AVIF coder cannot encode \(format.rawValue) images.")
        }
        let frames = options.encodeFrames(of: image)
        let encode: (Double) throws -> Data
        if frames.isAnimated {
            encode = { quality in
                try AVIFAnimationEncoder.encode(frames, quality: quality, lossless: options.lossless)
            }
        } else {
            let bitmap = try frames.frame(at: 0).bitmap
            encode = { quality in
                try AVIFEncoder.encode(bitmap, quality: quality, lossless: options.lossless,
                                       process: options.encoderProcess)
            }
        }
        if options.lossless { return try encode(1) }
        if let maxBytes = options.maxFileSize {
            return try EncodeQualitySearch.bestFitting(maxBytes: maxBytes) { try encode(Double($0) / 100) }
        }
        return try encode(options.compressionQuality)
    }
}
