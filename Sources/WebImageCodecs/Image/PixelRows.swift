/// RGBA8 rows in the library's pixel layout (straight alpha, R, G, B, A per pixel), borrowed
/// rather than owned, and possibly padded: a ``Bitmap``'s memory, or a decoder's own output
/// buffer read in place (by ``Resampler``) instead of being copied into a bitmap first.
///
/// Valid only while the memory it points at is; never stored.
struct PixelRows {
    /// The first byte of the top row.
    let base: UnsafePointer<UInt8>
    let width: Int
    let height: Int
    /// The distance in bytes from one row to the next (at least `width * 4`).
    let bytesPerRow: Int

    init(base: UnsafePointer<UInt8>, width: Int, height: Int, bytesPerRow: Int) {
        precondition(width > 0 && height > 0 && bytesPerRow >= width * 4, "pixel rows need a size and room for it")
        self.base = base
        self.width = width
        self.height = height
        self.bytesPerRow = bytesPerRow
    }

    /// A bitmap's bytes (`bytes` from ``Bitmap/withUnsafeBytes(_:)``), rows unpadded.
    init(_ bytes: UnsafeBufferPointer<UInt8>, width: Int, height: Int) {
        precondition(bytes.count == width * height * 4, "a bitmap's bytes are width * height * 4")
        self.init(base: bytes.baseAddress!, width: width, height: height, bytesPerRow: width * 4)
    }

    var size: PixelSize { PixelSize(width: width, height: height) }

    /// True when any pixel is not fully opaque.
    var hasAlpha: Bool {
        if bytesPerRow == width &* 4 { return Self.anyNotOpaque(base, count: width &* height) }
        for y in 0..<height where Self.anyNotOpaque(base + y &* bytesPerRow, count: width) { return true }
        return false
    }

    /// True when one of the `count` pixels from `start` is not fully opaque. Each pixel is read
    /// as one 32-bit word (alpha is its top byte, read little-endian) and the words are ANDed
    /// over runs of pixels: a loop with no exit per pixel, which the compiler vectorizes; the
    /// scan stops after the first run holding a pixel that is not opaque.
    private static func anyNotOpaque(_ start: UnsafePointer<UInt8>, count: Int) -> Bool {
        let words = UnsafeRawPointer(start), run = 256
        var from = 0
        while from < count {
            let end = Swift.min(from &+ run, count)
            var all: UInt32 = .max
            for i in from..<end {
                all &= words.loadUnaligned(fromByteOffset: i &* 4, as: UInt32.self)
            }
            if UInt32(littleEndian: all) >> 24 != 255 { return true }
            from = end
        }
        return false
    }
}
