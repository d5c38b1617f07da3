import CAVIF

/// Decodes the primary image of an AVIF (or the first frame of a sequence) into a ``Bitmap``.
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

    /// Decodes `bytes` per `options`: limits from the header, then the first frame at full size,
    /// cropped and turned as the container says, resampled to the requested size.
    static func decode(_ bytes: UnsafeBufferPointer<UInt8>, options: DecodeOptions) throws -> Image {
        try withParsedDecoder(bytes, sizeLimit: options.limits.maxPixels) { decoder in
            let header = decoder.pointee.image!
            let stored = PixelSize(width: Int(header.pointee.width), height: Int(header.pointee.height))
            try options.limits.check(stored, format: .avif)
            try AVIFFailure.check(avifDecoderNextImage(decoder), "decoding the AV1 image",
                                  diagnostics: diagnostics(decoder))
            let image = decoder.pointee.image!
            let decoded = PixelSize(width: Int(image.pointee.width), height: Int(image.pointee.height))
            guard decoded == stored else {
                throw WebImageError.badData("The AVIF container declares \(stored) but its AV1 image is \(decoded).")
            }
            let transforms = AVIFTransforms(image)
            let bitmap = try AVIFPixels.bitmap(of: image, crop: transforms)
            let shown = DecodedOutput.finish([bitmap], orientation: transforms.orientation, options: options)[0]
            return Image(bitmap: shown, format: .avif, scale: options.scaleFactor, decodeOptions: options)
        }
    }

    /// Runs `body` with a libavif decoder that has parsed `bytes` (which must outlive it), with
    /// libavif's pixel limit (for items, grids and AV1 frames) at `sizeLimit`, capped at its own.
    private static func withParsedDecoder<T>(_ bytes: UnsafeBufferPointer<UInt8>, sizeLimit: Int,
                                             _ body: (UnsafeMutablePointer<avifDecoder>) throws -> T) throws -> T {
        guard !bytes.isEmpty else { throw WebImageError.badData("The AVIF data is empty.") }
        guard let decoder = avifDecoderCreate() else {
            throw WebImageError(.imageTooLarge, "libavif could not allocate a decoder (out of memory).")
        }
        defer { avifDecoderDestroy(decoder) }
        // One thread per decode: a server decodes many images at once. Exif and XMP are not read
        // (the container's irot/imir, not Exif, orient an AVIF). Strict checks are off, as in
        // browsers, so files with harmless flaws (a missing pixi box) still decode.
        decoder.pointee.maxThreads = 1
        decoder.pointee.ignoreExif = AVIF_TRUE
        decoder.pointee.ignoreXMP = AVIF_TRUE
        decoder.pointee.strictFlags = AVIF_STRICT_DISABLED.rawValue
        decoder.pointee.imageSizeLimit = UInt32(clamping: min(max(sizeLimit, 1), librarySizeLimit))
        try AVIFFailure.check(avifDecoderSetIOMemory(decoder, bytes.baseAddress, bytes.count), "reading the AVIF data")
        try AVIFFailure.check(avifDecoderParse(decoder), "reading the AVIF header", diagnostics: diagnostics(decoder))
        guard decoder.pointee.image != nil else {
            throw WebImageError.badData("The AVIF header names no image.")
        }
        return try body(decoder)
    }

    private static func diagnostics(_ decoder: UnsafeMutablePointer<avifDecoder>) -> UnsafePointer<avifDiagnostics> {
        UnsafePointer(decoder.pointer(to: \.diag)!)
    }
}
