import CTIFF
import Foundation
@testable import WebImageCodecs

/// TIFFs written with libtiff at test time, for the layouts Pillow and libtiff's tools do not
/// make (16-bit RGB, associated alpha, 2- and 4-bit pixels, CMYK with a profile, pyramids whose
/// levels show different pictures, hostile headers). The committed fixtures made by the
/// reference tools are read through ``CodecFixtures``.
enum TIFFFixtures {
    struct Failed: Error, CustomStringConvertible {
        let description: String
    }

    /// One directory: its tags and its samples (chunky, row by row, one value per sample at any
    /// depth).
    struct Page {
        var width: Int
        var height: Int
        var bits = 8
        var photometric = PHOTOMETRIC_RGB
        var samplesPerPixel = 3
        var extraSamples: [UInt16] = []
        var samples: [UInt16]
        var planarSeparate = false
        /// Square tiles of this size instead of strips.
        var tile: Int?
        var rowsPerStrip: Int?
        var compression = COMPRESSION_LZW
        var sampleFormat = SAMPLEFORMAT_UINT
        var orientation = 1
        var icc: Data?
        /// 3 × 2^bits values: the reds, then the greens, then the blues.
        var colormap: [UInt16]?
        /// SubfileType "reduced-resolution image".
        var reduced = false
        /// YCbCrSubsampling (horizontal, vertical).
        var yCbCrSubsampling: (Int, Int)?

        /// A `width`×`height` page of one RGB (or RGBA, with unassociated alpha) colour.
        static func solid(_ width: Int, _ height: Int, _ colour: RGBA, alpha: Bool = false) -> Page {
            let pixel: [UInt16] = alpha ? [colour.r, colour.g, colour.b, colour.a].map(UInt16.init)
                : [colour.r, colour.g, colour.b].map(UInt16.init)
            return Page(width: width, height: height, samplesPerPixel: pixel.count,
                        extraSamples: alpha ? [UInt16(EXTRASAMPLE_UNASSALPHA)] : [],
                        samples: Array([[UInt16]](repeating: pixel, count: width * height).joined()))
        }
    }

    /// A file of `pages` in the main chain; `subIFDs` become SubIFDs of the first page.
    static func file(_ pages: [Page], subIFDs: [Page] = []) throws -> Data {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("fixture-\(UUID().uuidString).tif").path
        defer { try? FileManager.default.removeItem(atPath: path) }
        guard let tif = TIFFOpen(path, "w") else { throw Failed(description: "TIFFOpen failed") }
        do {
            for (index, page) in pages.enumerated() {
                try write(page, to: tif, subIFDCount: index == 0 ? subIFDs.count : 0)
                if index == 0 {
                    for sub in subIFDs { try write(sub, to: tif, subIFDCount: 0) }
                }
            }
        } catch {
            TIFFClose(tif)
            throw error
        }
        TIFFClose(tif)
        return try Data(contentsOf: URL(fileURLWithPath: path))
    }

    private static func write(_ page: Page, to tif: OpaquePointer, subIFDCount: Int) throws {
        func set32(_ tag: Int32, _ value: Int) throws {
            guard ctiff_set_u32(tif, UInt32(tag), UInt32(value)) == 1 else { throw Failed(description: "tag \(tag)") }
        }
        func set16(_ tag: Int32, _ value: Int) throws {
            guard ctiff_set_u16(tif, UInt32(tag), UInt16(value)) == 1 else { throw Failed(description: "tag \(tag)") }
        }
        try set32(TIFFTAG_IMAGEWIDTH, page.width)
        try set32(TIFFTAG_IMAGELENGTH, page.height)
        try set16(TIFFTAG_BITSPERSAMPLE, page.bits)
        try set16(TIFFTAG_SAMPLESPERPIXEL, page.samplesPerPixel)
        try set16(TIFFTAG_PHOTOMETRIC, Int(page.photometric))
        try set16(TIFFTAG_PLANARCONFIG, Int(page.planarSeparate ? PLANARCONFIG_SEPARATE : PLANARCONFIG_CONTIG))
        try set16(TIFFTAG_COMPRESSION, Int(page.compression))
        if page.sampleFormat != SAMPLEFORMAT_UINT { try set16(TIFFTAG_SAMPLEFORMAT, Int(page.sampleFormat)) }
        try set16(TIFFTAG_ORIENTATION, page.orientation)
        if page.reduced { try set32(TIFFTAG_SUBFILETYPE, Int(FILETYPE_REDUCEDIMAGE)) }
        if let (h, v) = page.yCbCrSubsampling {
            guard ctiff_set_u16_pair(tif, UInt32(TIFFTAG_YCBCRSUBSAMPLING), UInt16(h), UInt16(v)) == 1 else {
                throw Failed(description: "YCbCrSubsampling")
            }
        }
        if !page.extraSamples.isEmpty {
            guard ctiff_set_u16_array(tif, UInt32(TIFFTAG_EXTRASAMPLES), UInt16(page.extraSamples.count),
                                      page.extraSamples) == 1 else { throw Failed(description: "ExtraSamples") }
        }
        if let icc = page.icc {
            let ok = icc.withUnsafeBytes { ctiff_set_bytes(tif, UInt32(TIFFTAG_ICCPROFILE), UInt32(icc.count), $0.baseAddress) }
            guard ok == 1 else { throw Failed(description: "ICCProfile") }
        }
        if let map = page.colormap {
            let n = map.count / 3
            let ok = map.withUnsafeBufferPointer { m in
                ctiff_set_colormap(tif, m.baseAddress!, m.baseAddress! + n, m.baseAddress! + 2 * n)
            }
            guard ok == 1 else { throw Failed(description: "ColorMap") }
        }
        if subIFDCount > 0 {
            let placeholders = [UInt64](repeating: 0, count: subIFDCount)
            guard ctiff_set_u64_array(tif, UInt32(TIFFTAG_SUBIFD), UInt16(subIFDCount), placeholders) == 1 else {
                throw Failed(description: "SubIFD")
            }
        }
        let planes = page.planarSeparate ? page.samplesPerPixel : 1
        if let tile = page.tile {
            try set32(TIFFTAG_TILEWIDTH, tile)
            try set32(TIFFTAG_TILELENGTH, tile)
            for plane in 0..<planes {
                for y in stride(from: 0, to: page.height, by: tile) {
                    for x in stride(from: 0, to: page.width, by: tile) {
                        var bytes = packed(page, plane: page.planarSeparate ? plane : nil,
                                           rows: y..<(y + tile), columns: x..<(x + tile))
                        let index = TIFFComputeTile(tif, UInt32(x), UInt32(y), 0, UInt16(plane))
                        guard TIFFWriteEncodedTile(tif, index, &bytes, tmsize_t(bytes.count)) >= 0 else {
                            throw Failed(description: "tile \(index)")
                        }
                    }
                }
            }
        } else {
            let rows = page.rowsPerStrip ?? page.height
            try set32(TIFFTAG_ROWSPERSTRIP, rows)
            var strip: UInt32 = 0
            for plane in 0..<planes {
                for y in stride(from: 0, to: page.height, by: rows) {
                    var bytes = packed(page, plane: page.planarSeparate ? plane : nil,
                                       rows: y..<min(y + rows, page.height), columns: 0..<page.width)
                    guard TIFFWriteEncodedStrip(tif, strip, &bytes, tmsize_t(bytes.count)) >= 0 else {
                        throw Failed(description: "strip \(strip)")
                    }
                    strip += 1
                }
            }
        }
        guard TIFFWriteDirectory(tif) == 1 else { throw Failed(description: "TIFFWriteDirectory") }
    }

    /// The bytes of `rows` × `columns` (padded past the image with zeros, as edge tiles are), all
    /// samples or one plane's, at the page's depth; rows below 8 bits start on a byte.
    private static func packed(_ page: Page, plane: Int?, rows: Range<Int>, columns: Range<Int>) -> [UInt8] {
        let spp = page.samplesPerPixel
        let perPixel = plane == nil ? spp : 1
        var out: [UInt8] = []
        for y in rows {
            var bitBuffer: [UInt8] = []
            var bitCount = 0
            for x in columns {
                for s in 0..<perPixel {
                    let sample = plane ?? s
                    let value = y < page.height && x < page.width ? page.samples[(y * page.width + x) * spp + sample] : 0
                    switch page.bits {
                    case 16:
                        withUnsafeBytes(of: value) { out.append(contentsOf: $0) }
                    case 8:
                        out.append(UInt8(value))
                    default:
                        // Most significant bit first, across byte boundaries.
                        for b in stride(from: page.bits - 1, through: 0, by: -1) {
                            if bitCount % 8 == 0 { bitBuffer.append(0) }
                            if (value >> UInt16(b)) & 1 == 1 { bitBuffer[bitBuffer.count - 1] |= 0x80 >> UInt8(bitCount % 8) }
                            bitCount += 1
                        }
                    }
                }
            }
            out.append(contentsOf: bitBuffer)
        }
        return out
    }
}
