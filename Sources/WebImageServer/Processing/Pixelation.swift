import WebImage

/// imgproxy's `pixelate`: the image divided into `size`×`size` blocks from its top-left corner,
/// each block filled with the mean of its pixels on premultiplied alpha (a colour counts by its
/// coverage, so transparent pixels darken nothing; the alpha is the plain mean), rounded. Blocks
/// at the right and bottom edges that the image does not fill are averaged over the image
/// mirrored past its edge, as libvips' mirror extension does, and cut back to the image.
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
                        // Colour times alpha can pass Int's range for a block of billions of
                        // pixels, so the sums are Doubles (exact to 2^53, well past any real block).
                        var sums: (Double, Double, Double, Double) = (0, 0, 0, 0)
                        for (row, rowCount) in rowReads {
                            for (column, columnCount) in columnReads {
                                let index = (row * width + column) * 4
                                let weight = Double(rowCount * columnCount)
                                let coverage = Double(pixels[index + 3]) * weight
                                sums.0 += Double(pixels[index]) * coverage
                                sums.1 += Double(pixels[index + 1]) * coverage
                                sums.2 += Double(pixels[index + 2]) * coverage
                                sums.3 += coverage
                            }
                        }
                        let alpha = sums.3 / Double(area)
                        let colour = { (sum: Double) -> UInt8 in
                            sums.3 > 0 ? UInt8(min(255, (sum / sums.3).rounded())) : 0
                        }
                        let mean = [colour(sums.0), colour(sums.1), colour(sums.2), UInt8(min(255, alpha.rounded()))]
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
