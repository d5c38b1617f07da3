import WebImage

/// imgproxy's `pixelate`: the image divided into `size`×`size` blocks from its top-left corner,
/// each block filled with the rounded mean of its pixels (every channel, alpha included, as
/// stored). Blocks at the right and bottom edges that the image does not fill are averaged over
/// the image mirrored past its edge, as libvips' mirror extension does, and cut back to the image.
enum Pixelation {
    /// `bitmap` pixelated into blocks of `size` (capped at the longer side); itself when that is 1 or less.
    static func pixelate(_ bitmap: Bitmap, size: Int) -> Bitmap {
        let width = bitmap.width, height = bitmap.height
        let block = min(size, max(width, height))
        guard block > 1, width > 0, height > 0 else { return bitmap }
        // For each block column and row, the image columns and rows it reads and how often: a
        // block reads at most as many distinct pixels as the image has on that side, so the work
        // stays within a few times the image's pixels however large the block.
        let columns = readCounts(side: width, block: block)
        let rows = readCounts(side: height, block: block)
        let area = block * block
        return Bitmap(width: width, height: height) { out in
            bitmap.pixels.withUnsafeBufferPointer { pixels in
                for (blockRow, rowReads) in rows.enumerated() {
                    for (blockColumn, columnReads) in columns.enumerated() {
                        var sums = (0, 0, 0, 0)
                        for (row, rowCount) in rowReads {
                            for (column, columnCount) in columnReads {
                                let index = (row * width + column) * 4, weight = rowCount * columnCount
                                sums.0 += Int(pixels[index]) * weight
                                sums.1 += Int(pixels[index + 1]) * weight
                                sums.2 += Int(pixels[index + 2]) * weight
                                sums.3 += Int(pixels[index + 3]) * weight
                            }
                        }
                        let mean = [sums.0, sums.1, sums.2, sums.3].map { UInt8(($0 + area / 2) / area) }
                        for y in blockRow * block..<min((blockRow + 1) * block, height) {
                            for x in blockColumn * block..<min((blockColumn + 1) * block, width) {
                                let index = (y * width + x) * 4
                                out[index] = mean[0]
                                out[index + 1] = mean[1]
                                out[index + 2] = mean[2]
                                out[index + 3] = mean[3]
                            }
                        }
                    }
                }
            }
        }
    }

    /// For each block along a side of `side` pixels, the positions its `block` pixels read with
    /// how many times each: the side repeated mirrored past its end (edge pixel included:
    /// `side`, `side + 1`, … read `side − 1`, `side − 2`, …).
    private static func readCounts(side: Int, block: Int) -> [[(position: Int, count: Int)]] {
        var counts = [Int](repeating: 0, count: side)
        return stride(from: 0, to: side, by: block).map { start in
            var touched: [Int] = []
            for position in start..<start + block {
                let folded = position % (2 * side)
                let read = folded < side ? folded : 2 * side - 1 - folded
                if counts[read] == 0 { touched.append(read) }
                counts[read] += 1
            }
            defer { for read in touched { counts[read] = 0 } }
            return touched.map { ($0, counts[$0]) }
        }
    }
}
