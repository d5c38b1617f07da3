import CAVIF
import Foundation

/// Encodes one ``Bitmap`` as a still AVIF with libavif (its default AV1 encoder, libaom).
///
/// Settings chosen for servers: speed 8 of libavif's 0 (slowest) to 10 (fastest) range, and one
/// thread per encode (a server encodes many images at once). Measured with avifenc on a 1024×768
/// test picture at one quantizer: speed 8 took 0.13 s and wrote a file 21% larger than speed 6,
/// avifenc's default, which took 0.32 s; speed 10 saved another 0.04 s for 8% more bytes.
enum AVIFEncoder {
    /// libavif's speed setting for every encode.
    static let speed: Int32 = 8

    /// Encodes `bitmap` in a child `process` when one is given and the bitmap is large enough for
    /// it (so the encode stops when its ``WorkCancellation`` is cancelled), else in this process.
    static func encode(_ bitmap: Bitmap, quality: Double, lossless: Bool, process: EncoderProcess?) throws -> Data {
        guard let process, process.takes(bitmap) else {
            return try encodeHere(bitmap, quality: quality, lossless: lossless)
        }
        let run = EncoderProcessRun(process: process,
                                    arguments: EncoderProcess.avifArguments(bitmap, quality: quality, lossless: lossless),
                                    maxOutput: bitmap.width * bitmap.height * 8 + (1 << 20))
        let bytes = try bitmap.pixels.withUnsafeBytes { try run.run(input: $0) }
        return Data(bytes)
    }

    /// Encodes `bitmap` in this process. Lossy: 4:2:0 at `quality` (0…1, mapped linearly onto AV1's
    /// quantizer 63…0, the same for colour and alpha). Lossless: 4:4:4 with the identity matrix at
    /// quantizer 0, which round-trips every pixel exactly. Opaque bitmaps are written without alpha.
    static func encodeHere(_ bitmap: Bitmap, quality: Double, lossless: Bool) throws -> Data {
        let image = try makeImage(bitmap, lossless: lossless, alpha: bitmap.hasAlpha)
        defer { avifImageDestroy(image) }
        let encoder = try makeEncoder(quality: quality, lossless: lossless)
        defer { avifEncoderDestroy(encoder) }
        var output = avifRWData()
        defer { avifRWDataFree(&output) }
        let result = avifEncoderWrite(encoder, image, &output)
        guard result == AVIF_RESULT_OK, let bytes = output.data, output.size > 0 else {
            throw failure(encoder, result, "encode the \(bitmap.size) image")
        }
        return Data(bytes: bytes, count: output.size)
    }

    /// A libavif image of `bitmap`'s pixels in the colour setup ``encodeHere(_:quality:lossless:)``
    /// describes, with an alpha plane when `alpha` (else the pixels' alpha is ignored). The caller
    /// destroys it.
    static func makeImage(_ bitmap: Bitmap, lossless: Bool, alpha: Bool) throws -> UnsafeMutablePointer<avifImage> {
        let format = lossless ? AVIF_PIXEL_FORMAT_YUV444 : AVIF_PIXEL_FORMAT_YUV420
        guard let image = avifImageCreate(UInt32(bitmap.width), UInt32(bitmap.height), 8, format) else {
            throw WebImageError(.encodingFailed, "libavif could not allocate a \(bitmap.size) image (out of memory).")
        }
        // Tagged as sRGB, as avifenc tags an image without an ICC profile.
        image.pointee.yuvRange = AVIF_RANGE_FULL
        image.pointee.colorPrimaries = UInt16(AVIF_COLOR_PRIMARIES_BT709)
        image.pointee.transferCharacteristics = UInt16(AVIF_TRANSFER_CHARACTERISTICS_SRGB)
        image.pointee.matrixCoefficients = UInt16(lossless ? AVIF_MATRIX_COEFFICIENTS_IDENTITY : AVIF_MATRIX_COEFFICIENTS_BT601)
        do {
            try importPixels(bitmap, into: image, alpha: alpha)
        } catch {
            avifImageDestroy(image)
            throw error
        }
        return image
    }

    /// A libavif encoder with the server settings (``speed``, one thread) and the quantizer for
    /// `quality`, or lossless. The caller destroys it.
    static func makeEncoder(quality: Double, lossless: Bool) throws -> UnsafeMutablePointer<avifEncoder> {
        guard let encoder = avifEncoderCreate() else {
            throw WebImageError(.encodingFailed, "libavif could not allocate an encoder (out of memory).")
        }
        let quantizer = lossless ? Int32(AVIF_QUANTIZER_LOSSLESS) : quantizer(for: quality)
        encoder.pointee.speed = speed
        encoder.pointee.maxThreads = 1
        encoder.pointee.minQuantizer = quantizer
        encoder.pointee.maxQuantizer = quantizer
        encoder.pointee.minQuantizerAlpha = quantizer
        encoder.pointee.maxQuantizerAlpha = quantizer
        return encoder
    }

    /// The error for `result` from `encoder` when it failed to `action`, with libavif's diagnostic.
    static func failure(_ encoder: UnsafeMutablePointer<avifEncoder>, _ result: avifResult, _ action: String) -> WebImageError {
        let detail = AVIFFailure.detail(of: UnsafePointer(encoder.pointer(to: \.diag)!))
        return WebImageError(.encodingFailed,
            "libavif failed to \(action) (\(String(cString: avifResultToString(result)))\(detail.isEmpty ? "" : ": " + detail)).")
    }

    /// AV1's quantizer for a quality of 0…1: 1 → 0 (best), 0 → 63 (worst), rounded.
    static func quantizer(for quality: Double) -> Int32 {
        let clamped = min(max(quality, 0), 1)
        return Int32(((1 - clamped) * Double(AVIF_QUANTIZER_WORST_QUALITY)).rounded())
    }

    /// Converts the RGBA pixels into the image's YUV, and into its alpha plane when `alpha`.
    private static func importPixels(_ bitmap: Bitmap, into image: UnsafeMutablePointer<avifImage>, alpha: Bool) throws {
        var rgb = avifRGBImage()
        avifRGBImageSetDefaults(&rgb, image)
        rgb.format = AVIF_RGB_FORMAT_RGBA
        rgb.depth = 8
        rgb.ignoreAlpha = alpha ? AVIF_FALSE : AVIF_TRUE
        rgb.rowBytes = UInt32(bitmap.bytesPerRow)
        let result = bitmap.pixels.withUnsafeBufferPointer { pixels in
            rgb.pixels = UnsafeMutablePointer(mutating: pixels.baseAddress)
            return avifImageRGBToYUV(image, &rgb)
        }
        guard result == AVIF_RESULT_OK else {
            throw WebImageError(.encodingFailed,
                "libavif could not convert the \(bitmap.size) pixels to YUV (\(String(cString: avifResultToString(result)))).")
        }
    }
}
