import CTIFF
import Foundation

/// Writes one ``Bitmap`` as a baseline TIFF in memory with libtiff: 8-bit RGB, or RGBA with
/// unassociated alpha when any pixel is not opaque, chunky, in strips of about 64 KiB, LZW with
/// the horizontal predictor (lossless; smaller than uncompressed by about half on photographs,
/// and unlike Deflate or ZSTD readable by every TIFF reader).
enum TIFFEncoder {
    /// Uncompressed bytes per strip: small enough to stream, large enough that libtiff's
    /// per-strip work does not show.
    static let stripBytes = 64 << 10

    static func encode(_ bitmap: Bitmap) throws -> Data {
        let alpha = bitmap.hasAlpha
        let channels = alpha ? 4 : 3
        let rowBytes = bitmap.width * channels
        let rowsPerStrip = max(1, min(bitmap.height, stripBytes / max(rowBytes, 1)))
        let messages = TIFFMessages()
        let stream = TIFFMemoryStream(writingCapacity: bitmap.byteCount / 2 + 4096)
        guard let options = TIFFOpenOptionsAlloc() else {
            throw WebImageError(.encodingFailed, "libtiff could not allocate its options (out of memory).")
        }
        defer { TIFFOpenOptionsFree(options) }
        messages.install(on: options)
        guard let tif = TIFFClientOpenExt("memory", "w", stream.handle, TIFFMemoryStream.read, TIFFMemoryStream.write,
                                          TIFFMemoryStream.seek, TIFFMemoryStream.close, TIFFMemoryStream.size,
                                          TIFFMemoryStream.map, TIFFMemoryStream.unmap, options) else {
            throw failure(messages, "starting the file")
        }
        var closed = false
        defer { if !closed { TIFFClose(tif) } }
        let tags: [(Int32, UInt32)] = [(TIFFTAG_IMAGEWIDTH, UInt32(bitmap.width)), (TIFFTAG_IMAGELENGTH, UInt32(bitmap.height)),
                                       (TIFFTAG_ROWSPERSTRIP, UInt32(rowsPerStrip))]
        let shortTags: [(Int32, Int32)] = [
            (TIFFTAG_BITSPERSAMPLE, 8), (TIFFTAG_SAMPLESPERPIXEL, Int32(channels)),
            (TIFFTAG_PHOTOMETRIC, PHOTOMETRIC_RGB), (TIFFTAG_PLANARCONFIG, PLANARCONFIG_CONTIG),
            (TIFFTAG_SAMPLEFORMAT, SAMPLEFORMAT_UINT), (TIFFTAG_ORIENTATION, ORIENTATION_TOPLEFT),
            (TIFFTAG_COMPRESSION, COMPRESSION_LZW), (TIFFTAG_PREDICTOR, PREDICTOR_HORIZONTAL),
        ]
        var ok = tags.allSatisfy { ctiff_set_u32(tif, UInt32($0.0), $0.1) == 1 }
            && shortTags.allSatisfy { ctiff_set_u16(tif, UInt32($0.0), UInt16($0.1)) == 1 }
        if alpha {
            var extra = [UInt16(EXTRASAMPLE_UNASSALPHA)]
            ok = ok && ctiff_set_u16_array(tif, UInt32(TIFFTAG_EXTRASAMPLES), 1, &extra) == 1
        }
        guard ok else { throw failure(messages, "writing the tags") }

        // libtiff's predictor rewrites the strip it is given, so every strip goes through a copy.
        var strip = [UInt8](repeating: 0, count: rowsPerStrip * rowBytes)
        try bitmap.pixels.withUnsafeBufferPointer { pixels in
            try strip.withUnsafeMutableBufferPointer { strip in
                var y = 0, index: UInt32 = 0
                while y < bitmap.height {
                    try WorkCancellation.checkCurrent()
                    let rows = min(rowsPerStrip, bitmap.height - y)
                    let from = pixels.baseAddress! + y * bitmap.bytesPerRow
                    if alpha {
                        strip.baseAddress!.update(from: from, count: rows * rowBytes)
                    } else {
                        var s = 0, d = 0
                        for _ in 0..<(rows * bitmap.width) {
                            strip[d] = from[s]; strip[d + 1] = from[s + 1]; strip[d + 2] = from[s + 2]
                            s &+= 4; d &+= 3
                        }
                    }
                    guard TIFFWriteEncodedStrip(tif, index, strip.baseAddress, tmsize_t(rows * rowBytes)) >= 0 else {
                        throw failure(messages, "compressing strip \(index)")
                    }
                    y += rows
                    index += 1
                }
            }
        }
        guard TIFFFlush(tif) == 1 else { throw failure(messages, "writing the directory") }
        TIFFClose(tif)
        closed = true
        return stream.written
    }

    private static func failure(_ messages: TIFFMessages, _ action: String) -> WebImageError {
        WebImageError(.encodingFailed, "libtiff failed while \(action) (libtiff: \(messages.summary ?? "no message")).")
    }
}
