import Foundation

/// Writes one ``Bitmap`` as an uncompressed Windows BMP, rows bottom-up as most readers expect:
/// 24-bit BGR with a `BITMAPINFOHEADER` when every pixel is opaque, else 32-bit BGRA with a
/// `BITMAPV4HEADER` whose bit fields name the alpha channel (straight, not premultiplied) and
/// the sRGB colour space.
enum BMPEncoder {
    /// The largest file BMP's 32-bit size fields can describe.
    static let maxFileBytes = Int(UInt32.max)

    static func encode(_ bitmap: Bitmap) throws -> Data {
        let width = bitmap.width, height = bitmap.height
        let alpha = bitmap.hasAlpha
        let headerBytes = alpha ? 108 : 40
        let pixelOffset = 14 + headerBytes
        // Rows are padded to four bytes; a 32-bit row always is.
        let rowBytes = alpha ? width * 4 : (width * 3 + 3) & ~3
        let (imageBytes, overflow) = rowBytes.multipliedReportingOverflow(by: height)
        guard width > 0, height > 0, width <= Int(Int32.max), height <= Int(Int32.max), !overflow,
              imageBytes <= maxFileBytes - pixelOffset else {
            throw WebImageError(.encodingFailed,
                "A \(width)×\(height) image is too large for a BMP file (at most 4 GiB of pixels).")
        }
        // The headers; the pixels are written straight into the file's one buffer below.
        var out = [UInt8]()
        out.reserveCapacity(pixelOffset)
        func u16(_ value: Int) { out += [UInt8(value & 0xFF), UInt8(value >> 8 & 0xFF)] }
        func u32(_ value: UInt32) { out += [UInt8(value & 0xFF), UInt8(value >> 8 & 0xFF), UInt8(value >> 16 & 0xFF), UInt8(value >> 24)] }

        // File header.
        out += Array("BM".utf8)
        u32(UInt32(pixelOffset + imageBytes))
        u32(0)
        u32(UInt32(pixelOffset))
        // Info header: size, width, height (positive: bottom-up), planes, bits, compression.
        u32(UInt32(headerBytes))
        u32(UInt32(width))
        u32(UInt32(height))
        u16(1)
        u16(alpha ? 32 : 24)
        u32(alpha ? 3 : 0)                      // BI_BITFIELDS : BI_RGB
        u32(UInt32(imageBytes))
        u32(2835)                               // 72 dpi, in pixels per metre
        u32(2835)
        u32(0)                                  // no palette
        u32(0)
        if alpha {
            u32(0x00FF_0000)                    // red, green, blue and alpha masks
            u32(0x0000_FF00)
            u32(0x0000_00FF)
            u32(0xFF00_0000)
            out += Array("BGRs".utf8)           // LCS_sRGB, stored little-endian
            out += [UInt8](repeating: 0, count: 36 + 12)    // endpoints and gamma: unused for sRGB
        }

        var file = Data(count: pixelOffset + imageBytes)
        try file.withUnsafeMutableBytes { (file: UnsafeMutableRawBufferPointer) in
            let bytes = file.bindMemory(to: UInt8.self)
            _ = UnsafeMutableBufferPointer(rebasing: bytes[0..<pixelOffset]).initialize(from: out)
            try bitmap.withUnsafeBytes { pixels in
                var to = pixelOffset
                for y in stride(from: height - 1, through: 0, by: -1) {
                    if y & 63 == 0, WorkCancellation.isCurrentCancelled {
                        throw WebImageError(.cancelled, "The BMP encode was cancelled.")
                    }
                    var from = y * width * 4
                    for _ in 0..<width {
                        bytes[to] = pixels[from + 2]
                        bytes[to + 1] = pixels[from + 1]
                        bytes[to + 2] = pixels[from]
                        if alpha {
                            bytes[to + 3] = pixels[from + 3]
                            to += 4
                        } else {
                            to += 3
                        }
                        from += 4
                    }
                    // A 24-bit row's padding to four bytes stays zero.
                    if !alpha { to += rowBytes - width * 3 }
                }
            }
        }
        return file
    }
}
