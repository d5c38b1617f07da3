import CHEIF
import Foundation

/// Writes one ``Bitmap`` as HEIC with libheif's HEVC encoder, when the installed libheif has one
/// (``isAvailable``): 8-bit RGB, or RGBA with the alpha as libheif's auxiliary alpha image, at the
/// quality asked for. Memory only.
enum HEIFEncoder {
    /// Whether libheif can encode HEVC here (it has an encoder plugin, e.g. x265).
    static let isAvailable: Bool = {
        HEIFFailure.initialiseLibrary()
        return heif_have_encoder_for_format(heif_compression_HEVC) != 0
    }()

    /// The largest side written: HEVC's level limits in libheif's encoders (imgproxy shrinks
    /// larger results to it).
    static let maxSide = 16384

    /// The bytes libheif writes, collected through its writer callback.
    private final class Output {
        var data = Data()
    }

    /// `bitmap` as HEIC at `quality` (0…1).
    static func encode(_ bitmap: Bitmap, quality: Double) throws -> Data {
        guard isAvailable else {
            throw WebImageError(.unsupportedFormat, "This libheif has no HEVC encoder, so HEIC cannot be written.")
        }
        let width = bitmap.width, height = bitmap.height
        guard (1...maxSide).contains(width), (1...maxSide).contains(height) else {
            throw WebImageError(.encodingFailed,
                "A HEIC image is at most \(maxSide)×\(maxSide) pixels; this one is \(width)×\(height) (set maxPixelSize to shrink it).")
        }
        guard let context = heif_context_alloc() else {
            throw WebImageError(.encodingFailed, "libheif could not allocate a context (out of memory).")
        }
        defer { heif_context_free(context) }
        var encoder: OpaquePointer?
        try check(heif_context_get_encoder_for_format(context, heif_compression_HEVC, &encoder), "finding the HEVC encoder")
        guard let encoder else { throw WebImageError(.unsupportedFormat, "libheif returned no HEVC encoder.") }
        defer { heif_encoder_release(encoder) }
        let percent = Int32((min(max(quality, 0), 1) * 100).rounded())
        try check(heif_encoder_set_lossy_quality(encoder, percent), "setting the quality")

        let alpha = bitmap.hasAlpha
        var image: OpaquePointer?
        try check(heif_image_create(Int32(width), Int32(height), heif_colorspace_RGB,
                                    alpha ? heif_chroma_interleaved_RGBA : heif_chroma_interleaved_RGB, &image),
                  "creating the image")
        guard let image else { throw WebImageError(.encodingFailed, "libheif returned no image.") }
        defer { heif_image_release(image) }
        try check(heif_image_add_plane(image, heif_channel_interleaved, Int32(width), Int32(height), 8), "adding the pixel plane")
        var stride: Int32 = 0
        guard let plane = heif_image_get_plane(image, heif_channel_interleaved, &stride), Int(stride) >= width * (alpha ? 4 : 3) else {
            throw WebImageError(.encodingFailed, "libheif gave no pixel plane to fill.")
        }
        bitmap.pixels.withUnsafeBufferPointer { pixels in
            for y in 0..<height {
                let row = plane + y * Int(stride)
                if alpha {
                    row.update(from: pixels.baseAddress! + y * width * 4, count: width * 4)
                } else {
                    for x in 0..<width {
                        let from = (y * width + x) * 4
                        row[x * 3] = pixels[from]
                        row[x * 3 + 1] = pixels[from + 1]
                        row[x * 3 + 2] = pixels[from + 2]
                    }
                }
            }
        }
        try WorkCancellation.checkCurrent()
        try check(heif_context_encode_image(context, image, encoder, nil, nil), "encoding the image")

        let output = Output()
        var writer = heif_writer(writer_api_version: 1, write: { _, data, size, userdata in
            let output = Unmanaged<Output>.fromOpaque(userdata!).takeUnretainedValue()
            if let data, size > 0 { output.data.append(data.assumingMemoryBound(to: UInt8.self), count: size) }
            return heif_error(code: heif_error_Ok, subcode: heif_suberror_Unspecified, message: nil)
        })
        try withExtendedLifetime(output) {
            try check(heif_context_write(context, &writer, Unmanaged.passUnretained(output).toOpaque()), "writing the file")
        }
        return output.data
    }

    private static func check(_ error: heif_error, _ action: String) throws {
        guard error.code != heif_error_Ok else { return }
        let said = error.message.map { String(cString: $0) } ?? "no message"
        throw WebImageError(.encodingFailed, "libheif failed while \(action) (libheif: \(said)).")
    }
}
