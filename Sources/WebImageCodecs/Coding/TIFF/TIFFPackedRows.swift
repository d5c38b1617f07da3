import CTIFF

/// Reads a strip-organised directory whose samples are packed at a depth the band reader does
/// not carry (3, 5, 6, 7, 9–15 bits; several samples a pixel below 8 bits; a palette over 8
/// bits) through libtiff's scanline API, unpacks each row's samples (most significant bit first,
/// every row starting on a byte) and converts them to RGBA8.
///
/// Gray, RGB and alpha samples are scaled to 16 bits (`v × 65535 / (2^bits − 1)`, rounded) and go
/// through the 16-bit conversion of ``TIFFSamples``; palette samples index the colour map.
/// Chunky rows are read one at a time, top to bottom. Planar rows are read plane by plane (each
/// plane top to bottom, since libtiff restarts a strip's decode to go back) into one image of
/// 16-bit samples, at most ``maxSamplesPerPixel`` × 2 bytes a pixel.
struct TIFFPackedRows {
    /// The most samples a pixel the scanline path takes (colour, alpha and extra samples).
    static let maxSamplesPerPixel = 8

    let file: TIFFFile
    let directory: TIFFDirectory
    let format: TIFFPixelFormat

    private var width: Int { directory.size.width }
    private var height: Int { directory.size.height }

    /// Decodes every row into `destination` (`width × height` RGBA pixels).
    func decode(into destination: UnsafeMutablePointer<UInt8>) throws {
        let spp = format.samplesPerPixel
        guard format.bits >= 1, format.bits <= 16, spp >= 1, spp <= Self.maxSamplesPerPixel else {
            throw WebImageError(.unsupportedFormat, "The TIFF's \(spp) samples of \(format.bits) bits a pixel are not supported.")
        }
        let planes = directory.planarSeparate ? spp : 1
        let samplesPerRow = width * (directory.planarSeparate ? 1 : spp)
        let (rowBits, overflow) = samplesPerRow.multipliedReportingOverflow(by: format.bits)
        let packedBytes = (rowBits + 7) / 8
        let scanline = Int(TIFFScanlineSize64(file.tiff))
        guard !overflow, scanline >= packedBytes, scanline > 0 else {
            throw TIFFFailure.error(file.messages, while: "sizing the scanlines")
        }
        var raw = [UInt8](repeating: 0, count: scanline)
        if planes == 1 {
            var samples = [UInt16](repeating: 0, count: samplesPerRow)
            try raw.withUnsafeMutableBytes { raw in
                try samples.withUnsafeMutableBufferPointer { samples in
                    for y in 0..<height {
                        try read(row: y, plane: 0, into: raw.baseAddress!)
                        unpack(UnsafeRawPointer(raw.baseAddress!), count: samplesPerRow, into: samples.baseAddress!, stride: 1)
                        convert(samples.baseAddress!, rows: 1, into: destination + y * width * 4)
                    }
                }
            }
            return
        }
        // Planar: every plane into one image of chunky 16-bit samples, then converted.
        let (count, tooMany) = directory.size.area.multipliedReportingOverflow(by: spp)
        guard !tooMany else { throw WebImageError(.imageTooLarge, "The TIFF's \(directory.size) planes are too large to hold.") }
        var image = [UInt16](repeating: 0, count: count)
        try raw.withUnsafeMutableBytes { raw in
            try image.withUnsafeMutableBufferPointer { image in
                for plane in 0..<planes {
                    for y in 0..<height {
                        try read(row: y, plane: plane, into: raw.baseAddress!)
                        unpack(UnsafeRawPointer(raw.baseAddress!), count: width,
                               into: image.baseAddress! + y * width * spp + plane, stride: spp)
                    }
                }
                convert(image.baseAddress!, rows: height, into: destination)
            }
        }
    }

    private func read(row: Int, plane: Int, into buffer: UnsafeMutableRawPointer) throws {
        if row & 63 == 0 { try WorkCancellation.checkCurrent() }
        guard TIFFReadScanline(file.tiff, buffer, UInt32(row), UInt16(plane)) >= 0 else {
            throw TIFFFailure.error(file.messages, while: "decoding row \(row)")
        }
    }

    /// Unpacks `count` samples of ``format``'s depth from `packed` into `samples` (`stride`
    /// apart): palette indices as they are, other samples scaled to 16 bits (16-bit samples, a
    /// palette's only, are read as they are).
    private func unpack(_ packed: UnsafeRawPointer, count: Int, into samples: UnsafeMutablePointer<UInt16>, stride: Int) {
        let bytes = packed.assumingMemoryBound(to: UInt8.self)
        let bits = format.bits
        let maximum = UInt32(1) << UInt32(bits) - 1
        var isPalette = false
        if case .palette = format.color { isPalette = true }
        if bits == 16 {
            // libtiff hands 16-bit samples over in the machine's byte order (only 8 and 16 bits
            // are byte-swapped; other depths stay a stream of bits, most significant first).
            let wide = UnsafeRawPointer(packed)
            for i in 0..<count { samples[i * stride] = wide.loadUnaligned(fromByteOffset: i * 2, as: UInt16.self) }
            return
        }
        var bit = 0
        for i in 0..<count {
            // The sample's bits lie in at most three bytes (16 bits starting anywhere in a byte).
            let first = bit >> 3, shift = bit & 7
            var window = UInt32(bytes[first]) << 16
            if shift + bits > 8 { window |= UInt32(bytes[first + 1]) << 8 }
            if shift + bits > 16 { window |= UInt32(bytes[first + 2]) }
            let value = (window >> UInt32(24 - shift - bits)) & maximum
            samples[i * stride] = isPalette ? UInt16(value) : UInt16((value * 65535 + maximum / 2) / maximum)
            bit += bits
        }
    }

    /// Converts `rows` rows of chunky 16-bit samples to RGBA at `destination`.
    private func convert(_ samples: UnsafeMutablePointer<UInt16>, rows: Int, into destination: UnsafeMutablePointer<UInt8>) {
        let spp = format.samplesPerPixel
        if case .palette(let table) = format.color {
            let entries = table.count / 4
            for i in 0..<rows * width {
                let index = Int(samples[i * spp])
                let e = (index < entries ? index : 0) * 4
                let d = i * 4
                destination[d] = table[e]; destination[d + 1] = table[e + 1]; destination[d + 2] = table[e + 2]
                destination[d + 3] = 255
            }
            return
        }
        TIFFSamples.convert(format.widened, source: UnsafeRawPointer(samples), stride: width * spp * 2, rows: rows,
                            width: width, into: destination, sideAlpha: nil)
    }
}
