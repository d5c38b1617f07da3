import CGIF

/// One frame reduced to GIF's indexed colour: a colour table of at most 256 entries and one
/// index per pixel.
struct GIFIndexedFrame {
    /// The colour table, padded to a power of two (2…256 entries) as GIF requires.
    var colors: [GifColorType]
    /// One colour-table index per pixel, rows top to bottom.
    var indices: [UInt8]
    /// The index drawn as transparent, when the frame has pixels with alpha below 128.
    var transparentIndex: Int?
}

/// Reduces RGBA frames to indexed colour.
///
/// Frames with few colours keep them exactly. Others go through giflib's median-cut
/// quantizer (`GifQuantizeBuffer`), whose table is then refined (see ``GIFPaletteRefiner``)
/// because giflib's own pixel assignment can be far off. Pixels with alpha below
/// 128 become the transparent index, placed right after the opaque colours (255 when the
/// quantizer uses its full 255), so they never share an entry with a visible colour.
enum GIFQuantizer {
    /// One less than the pixels between two looks at the thread's ``WorkCancellation``.
    static let pixelsBetweenChecks = (1 << 16) - 1

    static func quantize(_ bitmap: Bitmap) throws -> GIFIndexedFrame {
        let pixelCount = bitmap.width * bitmap.height
        let hasTransparency = bitmap.pixels.withUnsafeBufferPointer { p in
            stride(from: 3, to: p.count, by: 4).contains { p[$0] < 128 }
        }
        let limit = hasTransparency ? 255 : 256
        var frame = try exactColors(bitmap, limit: limit) ?? medianCut(bitmap, limit: limit)
        try WorkCancellation.checkCurrent()
        if hasTransparency {
            let transparent = frame.colors.count
            frame.transparentIndex = transparent
            bitmap.pixels.withUnsafeBufferPointer { p in
                for i in 0..<pixelCount where p[i * 4 + 3] < 128 { frame.indices[i] = UInt8(transparent) }
            }
        }
        let used = frame.colors.count + (hasTransparency ? 1 : 0)
        var tableSize = 2
        while tableSize < used { tableSize *= 2 }
        frame.colors += Array(repeating: GifColorType(Red: 0, Green: 0, Blue: 0), count: tableSize - frame.colors.count)
        return frame
    }

    /// The frame's opaque colours kept exactly, or nil when there are more than `limit`.
    private static func exactColors(_ bitmap: Bitmap, limit: Int) throws -> GIFIndexedFrame? {
        var table: [UInt32: UInt8] = [:]
        var colors: [GifColorType] = []
        var indices = [UInt8](repeating: 0, count: bitmap.width * bitmap.height)
        let complete = try bitmap.pixels.withUnsafeBufferPointer { p -> Bool in
            var lastKey = UInt32.max, lastIndex: UInt8 = 0
            for i in 0..<indices.count {
                if i & Self.pixelsBetweenChecks == 0 { try WorkCancellation.checkCurrent() }
                let o = i * 4
                guard p[o + 3] >= 128 else { continue }
                let key = UInt32(p[o]) << 16 | UInt32(p[o + 1]) << 8 | UInt32(p[o + 2])
                if key != lastKey {
                    if let known = table[key] {
                        lastIndex = known
                    } else {
                        guard colors.count < limit else { return false }
                        lastIndex = UInt8(colors.count)
                        table[key] = lastIndex
                        colors.append(GifColorType(Red: p[o], Green: p[o + 1], Blue: p[o + 2]))
                    }
                    lastKey = key
                }
                indices[i] = lastIndex
            }
            return true
        }
        guard complete else { return nil }
        if colors.isEmpty { colors.append(GifColorType(Red: 0, Green: 0, Blue: 0)) }
        return GIFIndexedFrame(colors: colors, indices: indices, transparentIndex: nil)
    }

    /// Median cut over the opaque pixels into at most `limit` colours.
    private static func medianCut(_ bitmap: Bitmap, limit: Int) throws -> GIFIndexedFrame {
        var red: [UInt8] = [], green: [UInt8] = [], blue: [UInt8] = [], positions: [Int] = []
        let pixelCount = bitmap.width * bitmap.height
        red.reserveCapacity(pixelCount); green.reserveCapacity(pixelCount); blue.reserveCapacity(pixelCount)
        positions.reserveCapacity(pixelCount)
        try bitmap.pixels.withUnsafeBufferPointer { p in
            for i in 0..<pixelCount where p[i * 4 + 3] >= 128 {
                if i & Self.pixelsBetweenChecks == 0 { try WorkCancellation.checkCurrent() }
                red.append(p[i * 4]); green.append(p[i * 4 + 1]); blue.append(p[i * 4 + 2])
                positions.append(i)
            }
        }
        guard positions.count <= Int(Int32.max) else {
            throw WebImageError(.encodingFailed, "The frame is too large to quantize to GIF colours.")
        }
        var output = [UInt8](repeating: 0, count: positions.count)
        var table = [GifColorType](repeating: GifColorType(Red: 0, Green: 0, Blue: 0), count: 256)
        var size = Int32(limit)
        let status = GifQuantizeBuffer(UInt32(positions.count), 1, &size, &red, &green, &blue, &output, &table)
        guard status == GIF_OK, size > 0, size <= Int32(limit) else {
            throw WebImageError(.encodingFailed, "giflib could not reduce the frame to \(limit) colours.")
        }
        try WorkCancellation.checkCurrent()
        var refiner = GIFPaletteRefiner(colors: Array(table[0..<Int(size)]))
        try refiner.refine(red: red, green: green, blue: blue, into: &output)
        try WorkCancellation.checkCurrent()
        var indices = [UInt8](repeating: 0, count: pixelCount)
        for (n, position) in positions.enumerated() { indices[position] = output[n] }
        return GIFIndexedFrame(colors: refiner.colors, indices: indices, transparentIndex: nil)
    }
}
