import CTIFF

/// Reads a directory's samples band by band (a strip, a row of tiles, or a run of scanlines),
/// each band handed on as chunky rows: planes interleaved, tiles joined. libtiff decompresses;
/// this only moves bytes. Memory stays at one band: a whole-image strip larger than
/// ``maxStripBytes`` is read a run of scanlines at a time instead.
struct TIFFBands {
    /// The largest strip read whole; bigger ones (a single compressed strip for a large image)
    /// are read in runs of scanlines of about this size.
    static let maxStripBytes = 8 << 20

    let file: TIFFFile
    let directory: TIFFDirectory
    let format: TIFFPixelFormat

    private var tif: OpaquePointer { file.tiff }
    private var width: Int { directory.size.width }
    private var height: Int { directory.size.height }
    private var bytesPerSample: Int { format.bits / 8 }
    /// Chunky row size when the coder assembles the band itself (8- and 16-bit samples).
    private var assembledStride: Int { width * format.samplesPerPixel * bytesPerSample }

    /// Calls `body(firstRow, rowCount, rows, stride)` for every band, top to bottom; throws
    /// ``WebImageError/Code/cancelled`` between bands once the thread's ``WorkCancellation`` is.
    func forEach(_ body: (Int, Int, UnsafeRawPointer, Int) throws -> Void) throws {
        let body = { (first: Int, count: Int, rows: UnsafeRawPointer, stride: Int) throws in
            try WorkCancellation.checkCurrent()
            try body(first, count, rows, stride)
        }
        if directory.isTiled {
            try tiles(body)
        } else if directory.planarSeparate {
            try separateStrips(body)
        } else {
            try chunkyStrips(body)
        }
    }

    private var rowsPerStrip: Int {
        var rows: UInt32 = 0
        _ = ctiff_get_u32(tif, UInt32(TIFFTAG_ROWSPERSTRIP), &rows)
        return rows == 0 ? height : min(Int(rows), height)
    }

    private func failure(_ what: String) -> WebImageError {
        TIFFFailure.error(file.messages, while: what)
    }

    private func chunkyStrips(_ body: (Int, Int, UnsafeRawPointer, Int) throws -> Void) throws {
        let stride = Int(TIFFScanlineSize64(tif))
        let stripBytes = Int(TIFFStripSize64(tif))
        guard stride > 0, stripBytes > 0 else { throw failure("sizing the strips") }
        let rowsPerStrip = rowsPerStrip
        if stripBytes > Self.maxStripBytes {
            // A run of scanlines at a time, read in order as libtiff requires.
            let run = max(1, Self.maxStripBytes / stride)
            var buffer = [UInt8](repeating: 0, count: run * stride)
            try buffer.withUnsafeMutableBytes { band in
                var y = 0
                while y < height {
                    let rows = min(run, height - y)
                    for r in 0..<rows where TIFFReadScanline(tif, band.baseAddress! + r * stride, UInt32(y + r), 0) < 0 {
                        throw failure("decoding row \(y + r)")
                    }
                    try body(y, rows, UnsafeRawPointer(band.baseAddress!), stride)
                    y += rows
                }
            }
            return
        }
        var buffer = [UInt8](repeating: 0, count: stripBytes)
        try buffer.withUnsafeMutableBytes { band in
            var y = 0, strip: UInt32 = 0
            while y < height {
                let rows = min(rowsPerStrip, height - y)
                let read = TIFFReadEncodedStrip(tif, strip, band.baseAddress, -1)
                guard read >= rows * stride else {
                    throw read < 0 ? failure("decoding strip \(strip)")
                        : WebImageError.badData("TIFF strip \(strip) decodes to \(read) bytes, short of the \(rows * stride) its \(rows) rows need; the file is corrupt.")
                }
                try body(y, rows, UnsafeRawPointer(band.baseAddress!), stride)
                y += rows
                strip += 1
            }
        }
    }

    private func separateStrips(_ body: (Int, Int, UnsafeRawPointer, Int) throws -> Void) throws {
        let planeStride = width * bytesPerSample
        let rowsPerStrip = rowsPerStrip
        let stripsPerPlane = UInt32((height + rowsPerStrip - 1) / rowsPerStrip)
        let stripBytes = Int(TIFFStripSize64(tif))
        guard stripBytes >= rowsPerStrip * planeStride else { throw failure("sizing the strips") }
        var plane = [UInt8](repeating: 0, count: stripBytes)
        var band = [UInt8](repeating: 0, count: rowsPerStrip * assembledStride)
        try plane.withUnsafeMutableBytes { plane in
            try band.withUnsafeMutableBytes { band in
                var y = 0, strip: UInt32 = 0
                while y < height {
                    let rows = min(rowsPerStrip, height - y)
                    for sample in 0..<format.samplesPerPixel {
                        let index = UInt32(sample) * stripsPerPlane + strip
                        let read = TIFFReadEncodedStrip(tif, index, plane.baseAddress, -1)
                        guard read >= rows * planeStride else {
                            throw read < 0 ? failure("decoding strip \(index)")
                                : WebImageError.badData("TIFF strip \(index) decodes to \(read) bytes, short of the \(rows * planeStride) its rows need; the file is corrupt.")
                        }
                        interleave(plane.baseAddress!, into: band.baseAddress!, sample: sample,
                                   pixels: rows * width)
                    }
                    try body(y, rows, UnsafeRawPointer(band.baseAddress!), assembledStride)
                    y += rows
                    strip += 1
                }
            }
        }
    }

    private func tiles(_ body: (Int, Int, UnsafeRawPointer, Int) throws -> Void) throws {
        var tileWidth: UInt32 = 0, tileLength: UInt32 = 0
        _ = ctiff_get_u32(tif, UInt32(TIFFTAG_TILEWIDTH), &tileWidth)
        _ = ctiff_get_u32(tif, UInt32(TIFFTAG_TILELENGTH), &tileLength)
        let tw = Int(tileWidth), tl = Int(tileLength)
        let tileBytes = Int(TIFFTileSize64(tif))
        let planes = directory.planarSeparate ? format.samplesPerPixel : 1
        let tileStride = tw * (directory.planarSeparate ? 1 : format.samplesPerPixel) * bytesPerSample
        guard tw > 0, tl > 0, tileBytes >= tl * tileStride else { throw failure("sizing the tiles") }
        let bandRows = min(tl, height)
        var tile = [UInt8](repeating: 0, count: tileBytes)
        var band = [UInt8](repeating: 0, count: bandRows * assembledStride)
        let pixelBytes = format.samplesPerPixel * bytesPerSample
        try tile.withUnsafeMutableBytes { tile in
            try band.withUnsafeMutableBytes { band in
                var y = 0
                while y < height {
                    let rows = min(tl, height - y)
                    var x = 0
                    while x < width {
                        let columns = min(tw, width - x)
                        for sample in 0..<planes {
                            let index = TIFFComputeTile(tif, UInt32(x), UInt32(y), 0, UInt16(sample))
                            guard TIFFReadEncodedTile(tif, index, tile.baseAddress, -1) >= 0 else {
                                throw failure("decoding tile \(index)")
                            }
                            for r in 0..<rows {
                                let from = tile.baseAddress! + r * tileStride
                                let to = band.baseAddress! + r * assembledStride + x * pixelBytes
                                if planes == 1 {
                                    to.copyMemory(from: from, byteCount: columns * pixelBytes)
                                } else {
                                    interleave(from, into: to, sample: sample, pixels: columns)
                                }
                            }
                        }
                        x += columns
                    }
                    try body(y, rows, UnsafeRawPointer(band.baseAddress!), assembledStride)
                    y += rows
                }
            }
        }
    }

    /// Copies `pixels` samples of one plane into their place (`sample`) of chunky pixels.
    private func interleave(_ plane: UnsafeRawPointer, into chunky: UnsafeMutableRawPointer, sample: Int,
                            pixels: Int) {
        let spp = format.samplesPerPixel
        if bytesPerSample == 2 {
            let from = plane.assumingMemoryBound(to: UInt16.self)
            let to = chunky.assumingMemoryBound(to: UInt16.self)
            for i in 0..<pixels { to[i &* spp &+ sample] = from[i] }
        } else {
            let from = plane.assumingMemoryBound(to: UInt8.self)
            let to = chunky.assumingMemoryBound(to: UInt8.self)
            for i in 0..<pixels { to[i &* spp &+ sample] = from[i] }
        }
    }
}
