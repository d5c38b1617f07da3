import Foundation

/// Writes one ``Bitmap`` as a Windows icon holding a single PNG entry (the PNG-in-ICO form every
/// reader since Windows Vista accepts): an `ICONDIR`, one `ICONDIRENTRY`, then the PNG.
enum ICOEncoder {
    /// The largest side an icon entry can describe.
    static let maxSide = 256

    static func encode(_ bitmap: Bitmap) throws -> Data {
        let width = bitmap.width, height = bitmap.height
        guard (1...maxSide).contains(width), (1...maxSide).contains(height) else {
            throw WebImageError(.encodingFailed,
                "An ICO image is at most \(maxSide)×\(maxSide) pixels; this one is \(width)×\(height) (set maxPixelSize to shrink it).")
        }
        let png = try PNGEncoder.encode(bitmap)
        var out = [UInt8]()
        out.reserveCapacity(22 + png.count)
        func u16(_ value: Int) { out += [UInt8(value & 0xFF), UInt8(value >> 8 & 0xFF)] }
        func u32(_ value: Int) { out += [UInt8(value & 0xFF), UInt8(value >> 8 & 0xFF), UInt8(value >> 16 & 0xFF), UInt8(value >> 24 & 0xFF)] }
        // ICONDIR: reserved, type 1 (icon), one entry.
        u16(0)
        u16(1)
        u16(1)
        // ICONDIRENTRY: width and height (0 is 256), no palette, reserved, one plane, 32 bits,
        // the PNG's size and offset.
        out += [UInt8(width % 256), UInt8(height % 256), 0, 0]
        u16(1)
        u16(32)
        u32(png.count)
        u32(22)
        out += png
        return Data(out)
    }
}
