import Foundation

/// Decodes one entry of an ICO or CUR file: the directory is read here (``ICODirectory``), the
/// entry chosen for the requested size, and its image handed on alone: a PNG entry to the
/// library's PNG coder, a DIB entry to gdk-pixbuf's ICO loader as a one-entry ICO (a header made
/// here, then the entry's bytes where they lie), so the loader never chooses among entries, nor
/// reads an entry the directory check refused.
enum ICODecoder {
    static func decode(_ b: UnsafeBufferPointer<UInt8>, options: DecodeOptions) throws -> Image {
        let directory = try ICODirectory(b)
        let entry = try directory.choose(for: options)
        try options.limits.check(entry.size, format: .ico)
        let image = UnsafeBufferPointer(rebasing: b[entry.offset..<entry.offset + entry.length])
        let bitmap: Bitmap
        var profile: ColorProfile?
        if entry.isPNG {
            let plain = DecodeOptions(limits: options.limits, convertsToSRGB: options.convertsToSRGB)
            let decoded = try PNGCoder().decode(Data(buffer: image), options: plain)
            guard decoded.pixelSize == entry.size else {
                throw WebImageError.badData("ICO entry \(entry.index)'s PNG decodes to \(decoded.pixelSize), not the \(entry.size) its header says.")
            }
            bitmap = decoded.bitmap
            profile = decoded.colorProfile
        } else if let dib = DIBHeader(image, at: 0), dib.headerSize > 40 {
            bitmap = try versionFiveBitmap(image, dib, size: entry.size)
        } else {
            let header = singleEntryHeader(entry, isCursor: directory.isCursor)
            bitmap = try header.withUnsafeBufferPointer { header in
                try GdkPixbufDecoder.decode([header, image], loader: .ico, expected: entry.size)
            }
        }
        let shown = DecodedOutput.finish(bitmap, storedTarget: options.targetSize(for: entry.size), orientation: .up,
                                           filter: options.resamplingFilter)
        return Image(bitmap: shown, format: .ico, scale: options.scaleFactor, decodeOptions: options, colorProfile: profile)
    }

    /// A bitmap entry with a BITMAPV4 or V5 header (its masks and any embedded profile inside
    /// or after it), decoded by ``DIBPixels``: gdk-pixbuf's ICO loader takes the pixels to start
    /// 40 bytes in. The colour rows follow the header and palette; the 1-bit mask rows follow
    /// them (a 32-bit entry's mask is used only when its alpha is all zero, and may be missing).
    private static func versionFiveBitmap(_ image: UnsafeBufferPointer<UInt8>, _ dib: DIBHeader,
                                          size: PixelSize) throws -> Bitmap {
        // As ICODirectory counts them: biClrUsed entries at any depth, 2^depth by default to 8 bits.
        let entries = dib.bitCount <= 8 ? (dib.paletteEntries ?? 0) : min(dib.colorsUsed, 256)
        guard let palette = DIBPixels.palette(image, at: dib.headerSize, count: entries) else {
            throw WebImageError.badData("The ICO entry's palette of \(entries) colours ends past its \(image.count) bytes.")
        }
        let pixels = DIBPixels(width: size.width, height: size.height, topDown: dib.height < 0, bitCount: dib.bitCount,
                               palette: palette, masks: .standard(bitCount: dib.bitCount, alpha: dib.bitCount == 32),
                               pixelOffset: dib.headerSize + entries * 4)
        let maskBytes = DIBHeader.rowBytes(width: size.width, bitCount: 1) * size.height
        let colorEnd = pixels.pixelOffset + pixels.rowBytes * size.height
        let mask = colorEnd..<colorEnd + maskBytes
        // A profile embedded where the mask would be leaves no room for one: the entry is opaque.
        if let profile = embeddedProfile(image, dib), profile.overlaps(mask) {
            return try pixels.decode(image, andMask: false)
        }
        return try pixels.decode(image, andMask: dib.bitCount != 32 || maskBytes <= image.count - min(colorEnd, image.count))
    }

    /// Where a BITMAPV5 header's embedded profile lies (offsets from the header's start), if it
    /// has one.
    private static func embeddedProfile(_ image: UnsafeBufferPointer<UInt8>, _ dib: DIBHeader) -> Range<Int>? {
        guard dib.headerSize == 124, image.count >= 124 else { return nil }
        let embedded: UInt32 = 0x4D42_4544 // 'MBED', PROFILE_EMBEDDED
        guard DIBHeader.u32(image, 56) == embedded else { return nil }
        let offset = Int(DIBHeader.u32(image, 112)), size = Int(DIBHeader.u32(image, 116))
        guard size > 0 else { return nil }
        return offset..<offset + size
    }

    /// The size of the entry a full-size decode shows (the largest).
    static func size(_ b: UnsafeBufferPointer<UInt8>) throws -> PixelSize {
        try ICODirectory(b).largest.size
    }

    /// The header and directory of an ICO (or CUR) holding only `entry`, its record pointing just
    /// past the directory, where its image bytes follow.
    private static func singleEntryHeader(_ entry: ICODirectory.Entry, isCursor: Bool) -> [UInt8] {
        [0, 0, isCursor ? 2 : 1, 0, 1, 0] + entry.record.prefix(12) + [22, 0, 0, 0]
    }
}
