/// Decodes a BMP with gdk-pixbuf's BMP loader after checking its header: a size it can hold,
/// within the decode limits. BMP has no reduced decode, so a thumbnail is resampled afterwards.
enum BMPDecoder {
    /// The shown size the headers declare (rows top-down or bottom-up alike).
    static func size(_ b: UnsafeBufferPointer<UInt8>) throws -> PixelSize {
        guard b.count >= 14 + 16 else {
            throw WebImageError.badData("The BMP data (\(b.count) bytes) ends inside its headers: the file is truncated.")
        }
        guard let dib = DIBHeader(b, at: 14) else {
            throw WebImageError.badData("The BMP has an unknown or cut-short bitmap header (\(DIBHeader.u32(b, 14)) bytes declared).")
        }
        // Int32.min has no positive counterpart; every other negative height means top-down rows.
        guard dib.width > 0, dib.height != 0, dib.height != Int(Int32.min) else {
            throw WebImageError.badData("The BMP header declares an impossible size (\(dib.width) x \(dib.height)).")
        }
        guard DIBHeader.bitCounts.contains(dib.bitCount) else {
            throw WebImageError.badData("The BMP header declares \(dib.bitCount) bits per pixel, which BMP does not have.")
        }
        return PixelSize(width: dib.width, height: abs(dib.height))
    }

    /// Refuses a file whose pixel data ends early. gdk-pixbuf's BMP loader does not: it hands back
    /// the rows it got and leaves the rest blank. Uncompressed rows have a known size; a
    /// run-length stream must reach its end-of-bitmap code.
    static func checkComplete(_ b: UnsafeBufferPointer<UInt8>, size: PixelSize) throws {
        guard let dib = DIBHeader(b, at: 14) else { return }
        guard let entries = dib.paletteEntries else {
            throw WebImageError.badData("The BMP header declares \(dib.colorsUsed) palette entries for \(dib.bitCount)-bit pixels; the file is corrupt.")
        }
        let start = Int(DIBHeader.u32(b, 10))
        let palette = entries * (dib.headerSize == 12 ? 3 : 4)
        guard start >= 14 + dib.headerSize + palette, start <= b.count else {
            throw WebImageError.badData("The BMP's pixel data offset (\(start)) is outside its \(b.count) bytes or inside its headers and palette; the file is truncated or corrupt.")
        }
        if dib.isUncompressed {
            let (bytes, overflow) = DIBHeader.rowBytes(width: size.width, bitCount: dib.bitCount)
                .multipliedReportingOverflow(by: size.height)
            if overflow || bytes > b.count - start {
                throw WebImageError.badData("The BMP's \(size) pixels need \(bytes) bytes from offset \(start), and the file has \(b.count - start); the file is truncated.")
            }
        } else if dib.isRunLength, !BMPRunLength.isTerminated(UnsafeBufferPointer(rebasing: b[start...]),
                                                               fourBit: dib.compression == 2) {
            throw WebImageError.badData("The BMP's run-length data ends before its end-of-bitmap code; the file is truncated.")
        }
    }

    /// The bit fields of a 16- or 32-bit BI_BITFIELDS (or BI_ALPHABITFIELDS) bitmap, which the
    /// library decodes itself (``DIBPixels``): the fields decide, and a palette stored beside them
    /// is ignored (gdk-pixbuf reads the palette instead). Nil for every other bitmap. The masks
    /// follow a 40-byte header, or lie inside a longer one.
    static func bitFields(_ b: UnsafeBufferPointer<UInt8>, _ dib: DIBHeader) -> DIBPixels.Masks? {
        guard dib.compression == 3 || dib.compression == 6, dib.bitCount == 16 || dib.bitCount == 32,
              [40, 52, 56, 108, 124].contains(dib.headerSize) else { return nil }
        let at = 14 + 40
        let count = dib.headerSize >= 56 || dib.compression == 6 ? 4 : 3
        guard at + count * 4 <= b.count else { return nil }
        let masks = DIBPixels.Masks(red: DIBHeader.u32(b, at), green: DIBHeader.u32(b, at + 4), blue: DIBHeader.u32(b, at + 8),
                                    alpha: count == 4 ? DIBHeader.u32(b, at + 12) : 0)
        return masks
    }

    static func decode(_ b: UnsafeBufferPointer<UInt8>, options: DecodeOptions) throws -> Image {
        let size = try size(b)
        try options.limits.check(size, format: .bmp)
        try checkComplete(b, size: size)
        let bitmap: Bitmap
        if let dib = DIBHeader(b, at: 14), let masks = bitFields(b, dib) {
            bitmap = try DIBPixels(width: size.width, height: size.height, topDown: dib.height < 0, bitCount: dib.bitCount,
                                   palette: [], masks: masks, pixelOffset: Int(DIBHeader.u32(b, 10))).decode(b)
        } else {
            bitmap = try GdkPixbufDecoder.decode(b, loader: .bmp, expected: size)
        }
        let shown = DecodedOutput.finish(bitmap, storedTarget: options.targetSize(for: size), orientation: .up,
                                           filter: options.resamplingFilter)
        return Image(bitmap: shown, format: .bmp, scale: options.scaleFactor, decodeOptions: options)
    }
}
