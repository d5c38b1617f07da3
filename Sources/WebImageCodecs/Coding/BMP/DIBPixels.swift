/// Uncompressed device-independent bitmap pixels (BI_RGB and BI_BITFIELDS rows), decoded by the
/// library itself where gdk-pixbuf's loaders go wrong: a BMP whose bit fields must decide while a
/// palette is also stored (gdk-pixbuf reads the palette), and ICO entries with a BITMAPV4/V5
/// header (gdk-pixbuf's ICO loader reads the pixels as if the header were 40 bytes).
///
/// Every offset and size is checked against the bytes before any pixel is read.
struct DIBPixels {
    /// Where each channel lies in a 16- or 32-bit pixel; a zero alpha mask means opaque.
    struct Masks: Equatable {
        var red: UInt32, green: UInt32, blue: UInt32, alpha: UInt32

        /// BI_RGB's layouts: 5-5-5 for 16 bits, B, G, R (and A when `alpha`) bytes for 32.
        static func standard(bitCount: Int, alpha: Bool) -> Masks {
            bitCount == 16 ? Masks(red: 0x7C00, green: 0x03E0, blue: 0x001F, alpha: 0)
                : Masks(red: 0x00FF_0000, green: 0x0000_FF00, blue: 0x0000_00FF, alpha: alpha ? 0xFF00_0000 : 0)
        }
    }

    let width: Int
    /// Rows of colour data (an ICO entry's header counts the mask rows too; this does not).
    let height: Int
    let topDown: Bool
    /// 1, 2, 4, 8, 16, 24 or 32.
    let bitCount: Int
    /// RGBA entries (alpha 255) for depths of 8 bits or less.
    let palette: [RGBA]
    /// For 16- and 32-bit pixels.
    let masks: Masks
    /// Offset of the first stored row.
    let pixelOffset: Int

    /// Bytes in one stored row (padded to 4 bytes).
    var rowBytes: Int { DIBHeader.rowBytes(width: width, bitCount: bitCount) }

    /// The pixels as straight RGBA, rows top to bottom. An alpha field that is zero in every pixel
    /// is taken as unused (opaque). With `andMask`, an ICO entry's 1-bit mask rows follow the
    /// colour rows: a set bit makes its pixel transparent (for 32-bit entries only when no pixel
    /// has alpha, as Windows does).
    func decode(_ b: UnsafeBufferPointer<UInt8>, andMask: Bool = false) throws -> Bitmap {
        guard width > 0, height > 0, [1, 2, 4, 8, 16, 24, 32].contains(bitCount) else {
            throw WebImageError.badData("The bitmap declares \(width) x \(height) pixels of \(bitCount) bits.")
        }
        let (colorBytes, overflow) = rowBytes.multipliedReportingOverflow(by: height)
        let maskRowBytes = DIBHeader.rowBytes(width: width, bitCount: 1)
        let maskBytes = andMask ? maskRowBytes * height : 0
        guard !overflow, pixelOffset >= 0, pixelOffset <= b.count, colorBytes <= b.count - pixelOffset,
              maskBytes <= b.count - pixelOffset - colorBytes else {
            throw WebImageError.badData("The bitmap's \(width)x\(height) pixels need more bytes than the \(b.count - min(max(pixelOffset, 0), b.count)) after offset \(pixelOffset); the file is truncated.")
        }
        let maskStart = pixelOffset + colorBytes
        return Bitmap(width: width, height: height) { out in
            var anyAlpha = false
            for y in 0..<height {
                let stored = pixelOffset + (topDown ? y : height - 1 - y) * rowBytes
                let row = UnsafeBufferPointer(rebasing: b[stored..<stored + rowBytes])
                for x in 0..<width {
                    let pixel = self.pixel(row, x)
                    if pixel.a != 0 { anyAlpha = true }
                    let d = (y * width + x) * 4
                    out[d] = pixel.r; out[d + 1] = pixel.g; out[d + 2] = pixel.b; out[d + 3] = pixel.a
                }
            }
            if !andMask, masks.alpha != 0, !anyAlpha, bitCount >= 16 {
                // An alpha field that is zero everywhere is unused, not "all transparent".
                for i in 0..<width * height { out[i * 4 + 3] = 255 }
            }
            guard andMask, bitCount != 32 || !anyAlpha else { return }
            for y in 0..<height {
                let stored = maskStart + (topDown ? y : height - 1 - y) * maskRowBytes
                for x in 0..<width {
                    let transparent = b[stored + (x >> 3)] & (0x80 >> UInt8(x & 7)) != 0
                    out[(y * width + x) * 4 + 3] = transparent ? 0 : 255
                }
            }
        }
    }

    private func pixel(_ row: UnsafeBufferPointer<UInt8>, _ x: Int) -> RGBA {
        switch bitCount {
        case 24:
            let i = x * 3
            return RGBA(r: row[i + 2], g: row[i + 1], b: row[i], a: 255)
        case 16:
            let i = x * 2
            return fields(UInt32(row[i]) | UInt32(row[i + 1]) << 8)
        case 32:
            let i = x * 4
            return fields(UInt32(row[i]) | UInt32(row[i + 1]) << 8 | UInt32(row[i + 2]) << 16 | UInt32(row[i + 3]) << 24)
        default:
            let bit = x * bitCount
            let index = Int(row[bit >> 3] >> UInt8(8 - bitCount - (bit & 7))) & ((1 << bitCount) - 1)
            return index < palette.count ? palette[index] : RGBA(r: 0, g: 0, b: 0, a: 255)
        }
    }

    private func fields(_ value: UInt32) -> RGBA {
        RGBA(r: Self.channel(value, masks.red), g: Self.channel(value, masks.green), b: Self.channel(value, masks.blue),
             a: masks.alpha == 0 ? 255 : Self.channel(value, masks.alpha))
    }

    /// The masked field of `value` scaled to 8 bits (0 for an empty mask).
    static func channel(_ value: UInt32, _ mask: UInt32) -> UInt8 {
        guard mask != 0 else { return 0 }
        let shift = UInt32(mask.trailingZeroBitCount)
        let maximum = UInt64(mask >> shift)
        let field = UInt64((value & mask) >> shift)
        return UInt8(truncatingIfNeeded: (field * 255 + maximum / 2) / maximum)
    }

    /// `count` palette entries stored as B, G, R, reserved at `offset` (`entrySize` bytes each);
    /// nil when they do not fit in `b`.
    static func palette(_ b: UnsafeBufferPointer<UInt8>, at offset: Int, count: Int, entrySize: Int = 4) -> [RGBA]? {
        guard offset >= 0, count >= 0, count <= 1 << 16, offset <= b.count, count * entrySize <= b.count - offset else { return nil }
        return (0..<count).map { i in
            let e = offset + i * entrySize
            return RGBA(r: b[e + 2], g: b[e + 1], b: b[e], a: 255)
        }
    }
}
