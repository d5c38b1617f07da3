/// Hand-written files for the decode paths the library runs itself rather than through
/// gdk-pixbuf or libtiff's RGBA interface: uncompressed TIFFs of odd bit depths (unpacked from
/// scanlines), a 16-bit bit-field BMP that also stores a palette, and an ICO entry with a
/// BITMAPV5 header and an embedded profile.
enum SeedBitmapLayouts {
    static func le16(_ v: Int) -> [UInt8] { [UInt8(v & 0xFF), UInt8(v >> 8 & 0xFF)] }
    static func le32(_ v: Int) -> [UInt8] { [UInt8(v & 0xFF), UInt8(v >> 8 & 0xFF), UInt8(v >> 16 & 0xFF), UInt8(v >> 24 & 0xFF)] }
    /// The parts one after another (a list, not a chain of `+`, which the type checker finds slow).
    static func join(_ parts: [[UInt8]]) -> [UInt8] { parts.flatMap { $0 } }

    /// An uncompressed little-endian TIFF, one strip: `width`×`height` pixels of `samples`
    /// samples of `bits` bits (a ramp), chunky or planar, `photometric` (1 gray, 2 RGB, 3 palette).
    static func packedTIFF(width: Int, height: Int, bits: Int, samples: Int, photometric: Int, planar: Bool = false) -> [UInt8] {
        let planes = planar ? samples : 1
        let perRow = (width * (planar ? 1 : samples) * bits + 7) / 8
        var data: [UInt8] = []
        var value = 0
        for _ in 0..<planes {
            for _ in 0..<height {
                var row = [UInt8](repeating: 0, count: perRow)
                for i in 0..<(width * (planar ? 1 : samples)) {
                    value = (value + 5) % (1 << bits)
                    for b in 0..<bits where (value >> (bits - 1 - b)) & 1 == 1 {
                        let bit = i * bits + b
                        row[bit >> 3] |= 0x80 >> (bit & 7)
                    }
                }
                data += row
            }
        }
        let colormap = photometric == 3 ? (0..<(3 << bits)).flatMap { le16(($0 * 4099) & 0xFFFF) } : []
        var entries: [(tag: Int, type: Int, count: Int, value: [UInt8])] = [
            (256, 3, 1, le16(width) + [0, 0]), (257, 3, 1, le16(height) + [0, 0]),
            (258, 3, samples, []), (259, 3, 1, le16(1) + [0, 0]), (262, 3, 1, le16(photometric) + [0, 0]),
            (273, 4, planes, []), (277, 3, 1, le16(samples) + [0, 0]), (278, 4, 1, le32(height)),
            (279, 4, planes, []), (284, 3, 1, le16(planar ? 2 : 1) + [0, 0]),
        ]
        if !colormap.isEmpty { entries.append((320, 3, 3 << bits, [])) }
        // Layout: header, IFD, then the out-of-line values, then the pixels.
        let ifdSize = 2 + entries.count * 12 + 4
        var extra: [UInt8] = []
        var extraOffsets: [Int: Int] = [:]
        let extraStart = 8 + ifdSize
        func outOfLine(_ tag: Int, _ bytes: [UInt8]) { extraOffsets[tag] = extraStart + extra.count; extra += bytes }
        let bitsValue = (0..<samples).flatMap { _ in le16(bits) }
        if bitsValue.count > 4 { outOfLine(258, bitsValue) }
        let planeBytes = perRow * height
        let dataStart = extraStart + bitsValue.count + planes * 8 + colormap.count + 8
        let offsets = (0..<planes).flatMap { le32(dataStart + $0 * planeBytes) }
        let counts = (0..<planes).flatMap { _ in le32(planeBytes) }
        if planes > 1 { outOfLine(273, offsets); outOfLine(279, counts) }
        if !colormap.isEmpty { outOfLine(320, colormap) }
        extra += [UInt8](repeating: 0, count: dataStart - extraStart - extra.count)
        var ifd = le16(entries.count)
        for entry in entries {
            var value = entry.value
            switch entry.tag {
            case 258: value = bitsValue.count > 4 ? le32(extraOffsets[258]!) : bitsValue + [UInt8](repeating: 0, count: 4 - bitsValue.count)
            case 273: value = planes > 1 ? le32(extraOffsets[273]!) : le32(dataStart)
            case 279: value = planes > 1 ? le32(extraOffsets[279]!) : le32(planeBytes)
            case 320: value = le32(extraOffsets[320]!)
            default: break
            }
            ifd += join([le16(entry.tag), le16(entry.type), le32(entry.count), value])
        }
        ifd += le32(0)
        return join([[0x49, 0x49, 42, 0], le32(8), ifd, extra, data])
    }

    /// A 4×2 16-bit BI_BITFIELDS 5-6-5 BMP with a 4-entry palette beside its masks.
    static func bitFieldsBMP() -> [UInt8] {
        let masks = join([le32(0xF800), le32(0x07E0), le32(0x001F)])
        let palette = [UInt8](repeating: 0x40, count: 16)
        let rows = (0..<8).flatMap { le16(($0 * 0x2345) & 0xFFFF) }
        let offset = 14 + 40 + masks.count + palette.count
        let header = join([le32(40), le32(4), le32(2), le16(1), le16(16), le32(3), le32(rows.count), le32(2835), le32(2835),
                           le32(4), le32(0)])
        return join([Array("BM".utf8), le32(offset + rows.count), le32(0), le32(offset), header, masks, palette, rows])
    }

    /// An ICO of one 3×2 24-bit entry with a BITMAPV5 header whose profile follows the mask.
    static func versionFiveICO() -> [UInt8] {
        let colorRows = [UInt8](repeating: 0x7F, count: 12 * 2), maskRows: [UInt8] = [0x20, 0, 0, 0, 0, 0, 0, 0]
        let profile = [UInt8](repeating: 0xAB, count: 32)
        let header = join([le32(124), le32(3), le32(4), le16(1), le16(24), le32(0), le32(colorRows.count),
                           le32(2835), le32(2835), le32(0), le32(0),
                           le32(0xFF_0000), le32(0xFF00), le32(0xFF), le32(0), [0x44, 0x45, 0x42, 0x4D],
                           [UInt8](repeating: 0, count: 48), le32(4), le32(124 + colorRows.count + maskRows.count),
                           le32(profile.count), le32(0)])
        let image = join([header, colorRows, maskRows, profile])
        return join([[0, 0, 1, 0, 1, 0, 3, 2, 0, 0], le16(1), le16(24), le32(image.count), le32(22), image])
    }

    static func tiffSeeds() -> [(String, [UInt8])] {
        [
            ("gray-3bit", packedTIFF(width: 13, height: 5, bits: 3, samples: 1, photometric: 1)),
            ("gray-12bit", packedTIFF(width: 9, height: 4, bits: 12, samples: 1, photometric: 1)),
            ("rgb-10bit", packedTIFF(width: 7, height: 3, bits: 10, samples: 3, photometric: 2)),
            ("rgb-5bit-planar", packedTIFF(width: 7, height: 3, bits: 5, samples: 3, photometric: 2, planar: true)),
            ("palette-6bit", packedTIFF(width: 11, height: 3, bits: 6, samples: 1, photometric: 3)),
        ]
    }
}
