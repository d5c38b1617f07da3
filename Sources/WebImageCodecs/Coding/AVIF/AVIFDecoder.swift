import CAVIF
import Foundation

/// Decodes the primary image of an AVIF, or the frames of a sequence (``AVIFAnimationDecoder``).
///
/// The container is parsed first (no AV1 data decoded) and its size checked against the limits;
/// only then is the AV1 frame decoded. libavif's own size limit is lowered to ours before
/// parsing, so it also refuses a grid whose canvas is larger than its `ispe` says, and an AV1
/// stream (or grid cell) that claims more pixels than its container.
enum AVIFDecoder {
    /// libavif's largest allowed `imageSizeLimit` (its default): 16384 × 16384.
    static let librarySizeLimit = 16384 * 16384

    /// The header facts: the size as shown and the frame count.
    static func info(_ bytes: UnsafeBufferPointer<UInt8>) throws -> ImageInfo {
        try withParsedDecoder(bytes, sizeLimit: librarySizeLimit) { decoder in
            let transforms = AVIFTransforms(decoder.pointee.image)
            guard !transforms.displayedSize.isEmpty else {
                throw WebImageError.badData("The AVIF header declares an empty image.")
            }
            return ImageInfo(format: .avif, pixelSize: transforms.displayedSize,
                             frameCount: Int(max(decoder.pointee.imageCount, 1)))
        }
    }

    /// Decodes `bytes` (the contents of `data`, which an animation keeps) per `options`: limits
    /// from the header, then a still image (or the first frame only, when asked) at full size,
    /// cropped, colour-converted and turned as the container says, resampled to the requested
    /// size; or a sequence as an animation.
    static func decode(_ bytes: UnsafeBufferPointer<UInt8>, data: Data, options: DecodeOptions) throws -> Image {
        try withParsedDecoder(bytes, sizeLimit: options.limits.maxPixels) { decoder in
            let stored = storedSize(decoder)
            try options.limits.check(stored, format: .avif)
            if decoder.pointee.imageCount > 1, !options.firstFrameOnly {
                return try AVIFAnimationDecoder.decode(decoder, data: data, stored: stored, options: options)
            }
            let image = try decodeImage(decoder, at: 0, stored: stored)
            let transforms = AVIFTransforms(image)
            let color = AVIFColor.plan(image, options: options)
            let bitmap = try AVIFPixels.bitmap(of: image, crop: transforms, color: color)
            let shown = DecodedOutput.finish([bitmap], orientation: transforms.orientation, options: options)[0]
            return Image(bitmap: shown, format: .avif, scale: options.scaleFactor, decodeOptions: options,
                         colorProfile: color.profile)
        }
    }

    /// The stored size the container declares for its image (before crop and rotation).
    static func storedSize(_ decoder: UnsafeMutablePointer<avifDecoder>) -> PixelSize {
        let header = decoder.pointee.image!
        return PixelSize(width: Int(header.pointee.width), height: Int(header.pointee.height))
    }

    /// Decodes frame `index` (0 for a still image) with libavif's `avifDecoderNthImage`, which
    /// decodes the next frame directly and reaches any other from its nearest keyframe; the
    /// returned image lives until the decoder's next call. Throws when its size is not `stored`.
    static func decodeImage(_ decoder: UnsafeMutablePointer<avifDecoder>, at index: Int,
                            stored: PixelSize) throws -> UnsafeMutablePointer<avifImage> {
        let what = decoder.pointee.imageCount > 1 ? "decoding frame \(index + 1) of the AVIF sequence" : "decoding the AV1 image"
        try AVIFFailure.check(avifDecoderNthImage(decoder, UInt32(index)), what, diagnostics: diagnostics(decoder))
        let image = decoder.pointee.image!
        let decoded = PixelSize(width: Int(image.pointee.width), height: Int(image.pointee.height))
        guard decoded == stored else {
            throw WebImageError.badData("The AVIF container declares \(stored) but its AV1 image is \(decoded).")
        }
        return image
    }

    /// Runs `body` with a libavif decoder that has parsed `bytes` (which must outlive it), with
    /// libavif's pixel limit (for items, grids and AV1 frames) at `sizeLimit`, capped at its own.
    private static func withParsedDecoder<T>(_ bytes: UnsafeBufferPointer<UInt8>, sizeLimit: Int,
                                             _ body: (UnsafeMutablePointer<avifDecoder>) throws -> T) throws -> T {
        let decoder = try parsedDecoder(bytes, sizeLimit: sizeLimit)
        defer { avifDecoderDestroy(decoder) }
        return try body(decoder)
    }

    /// A libavif decoder that has parsed `bytes` (which must outlive it); the caller destroys it
    /// with `avifDecoderDestroy`.
    static func parsedDecoder(_ bytes: UnsafeBufferPointer<UInt8>, sizeLimit: Int) throws -> UnsafeMutablePointer<avifDecoder> {
        guard !bytes.isEmpty else { throw WebImageError.badData("The AVIF data is empty.") }
        guard let decoder = avifDecoderCreate() else {
            throw WebImageError(.imageTooLarge, "libavif could not allocate a decoder (out of memory).")
        }
        do {
            // One thread per decode: a server decodes many images at once. Exif and XMP are not
            // read (the container's irot/imir, not Exif, orient an AVIF). Strict checks are off,
            // as in browsers, so files with harmless flaws (a missing pixi box) still decode.
            decoder.pointee.maxThreads = 1
            decoder.pointee.ignoreExif = AVIF_TRUE
            decoder.pointee.ignoreXMP = AVIF_TRUE
            decoder.pointee.strictFlags = AVIF_STRICT_DISABLED.rawValue
            decoder.pointee.imageSizeLimit = UInt32(clamping: min(max(sizeLimit, 1), librarySizeLimit))
            guard let io = avifIOCreateMemoryReader(bytes.baseAddress, bytes.count) else {
                throw WebImageError(.imageTooLarge, "libavif could not allocate a reader (out of memory).")
            }
            // The size hint bounds what libavif lets boxes and items declare (and the buffer it
            // may allocate to merge an item's extents). A cut-off file (a download that ended
            // early) declares more than it holds: with twice the data as the bound, one that
            // lost up to half its bytes still parses, and each frame fails only when its own
            // bytes are missing (reads stay within the data). The decoder owns the reader.
            io.pointee.sizeHint = UInt64(bytes.count) * 2
            avifDecoderSetIO(decoder, io)
            try AVIFFailure.check(avifDecoderParse(decoder), "reading the AVIF header", diagnostics: diagnostics(decoder))
            guard decoder.pointee.image != nil else {
                throw WebImageError.badData("The AVIF header names no image.")
            }
            return decoder
        } catch {
            avifDecoderDestroy(decoder)
            throw error
        }
    }

    private static func diagnostics(_ decoder: UnsafeMutablePointer<avifDecoder>) -> UnsafePointer<avifDiagnostics> {
        UnsafePointer(decoder.pointer(to: \.diag)!)
    }
}
