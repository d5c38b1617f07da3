import Foundation

extension ImageFormat {
    /// Identifies the format of `data` from its leading bytes.
    ///
    /// Whole signatures are checked, not just a first byte: a text body that starts with "G" is not
    /// a GIF, and an HTML error page is not an SVG. APNG is told from PNG by an `acTL` chunk before
    /// the first `IDAT`.
    public static func detect(_ data: Data) -> ImageFormat {
        data.withUnsafeBytes { raw in detect(raw.bindMemory(to: UInt8.self)) }
    }

    /// Byte-buffer form of ``detect(_:)-swift.type.method``.
    public static func detect(_ b: UnsafeBufferPointer<UInt8>) -> ImageFormat {
        func has(_ sig: [UInt8], at offset: Int = 0) -> Bool {
            guard b.count >= offset + sig.count else { return false }
            for (i, byte) in sig.enumerated() where b[offset + i] != byte { return false }
            return true
        }
        if has([0xFF, 0xD8, 0xFF]) { return .jpeg }
        if has([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]) {
            return PNGChunks.hasAnimationControl(b) ? .apng : .png
        }
        if has(Array("GIF87a".utf8)) || has(Array("GIF89a".utf8)) { return .gif }
        if has(Array("RIFF".utf8)) && has(Array("WEBPVP8".utf8), at: 8) { return .webp }
        if isTIFF(b) { return .tiff }
        if has([0xFF, 0x0A]) || has([0, 0, 0, 0x0C, 0x4A, 0x58, 0x4C, 0x20, 0x0D, 0x0A, 0x87, 0x0A]) {
            return .jpegXL
        }
        if has(Array("%PDF-".utf8)) { return .pdf }
        if has(Array("BM".utf8)), isBMP(b) { return .bmp }
        if has([0, 0, 1, 0]) || has([0, 0, 2, 0]), isICO(b) { return .ico }
        if has(Array("ftyp".utf8), at: 4) { return isoMediaFormat(b) }
        if isSVG(b) { return .svg }
        return .undefined
    }

    /// TIFF: a byte-order mark, 42 (classic) or 43 (BigTIFF, with 8-byte offsets), and a first
    /// directory offset past the header.
    private static func isTIFF(_ b: UnsafeBufferPointer<UInt8>) -> Bool {
        guard b.count >= 8 else { return false }
        let little: Bool
        switch (b[0], b[1]) {
        case (0x49, 0x49): little = true
        case (0x4D, 0x4D): little = false
        default: return false
        }
        func u16(_ at: Int) -> UInt64 {
            little ? UInt64(b[at]) | UInt64(b[at + 1]) << 8 : UInt64(b[at]) << 8 | UInt64(b[at + 1])
        }
        func u32(_ at: Int) -> UInt64 { little ? u16(at) | u16(at + 2) << 16 : u16(at) << 16 | u16(at + 2) }
        switch u16(2) {
        case 42:
            return u32(4) >= 8
        case 43:
            // Offset size 8, a reserved zero, then the 8-byte first directory offset.
            guard b.count >= 16, u16(4) == 8, u16(6) == 0 else { return false }
            return (little ? u32(8) | u32(12) << 32 : u32(8) << 32 | u32(12)) >= 16
        default:
            return false
        }
    }

    /// BMP: "BM", then a DIB header whose size is one of the defined versions, one colour plane,
    /// and a bit depth BMP has.
    private static func isBMP(_ b: UnsafeBufferPointer<UInt8>) -> Bool {
        guard b.count >= 30, let dib = DIBHeader(b, at: 14) else { return false }
        let planes = dib.headerSize == 12 ? DIBHeader.u16(b, 22) : DIBHeader.u16(b, 26)
        return planes == 1 && DIBHeader.bitCounts.contains(dib.bitCount)
    }

    /// ICO or CUR: at least one entry, and a first entry that could be real: a non-empty image
    /// starting after the directory; for icons, at most one plane and a bit depth icons have,
    /// unless the entry's image is a PNG (whose own header says its depth; writers put anything
    /// in the directory's fields for those).
    private static func isICO(_ b: UnsafeBufferPointer<UInt8>) -> Bool {
        guard b.count >= 22 else { return false }
        let count = Int(DIBHeader.u16(b, 4))
        guard count > 0 else { return false }
        let size = DIBHeader.u32(b, 14), offset = Int(DIBHeader.u32(b, 18))
        guard size > 0, offset >= 6 + 16 * count else { return false }
        if offset <= b.count - 8, Array(b[offset..<offset + 8]) == ICODirectory.pngSignature { return true }
        if b[2] == 1 {
            let planes = DIBHeader.u16(b, 10), bits = DIBHeader.u16(b, 12)
            return planes <= 1 && [0, 1, 2, 4, 8, 16, 24, 32].contains(bits)
        }
        return true
    }

    /// HEIC, HEIF or AVIF from an ISO-BMFF `ftyp` box: the major brand, then compatible brands.
    private static func isoMediaFormat(_ b: UnsafeBufferPointer<UInt8>) -> ImageFormat {
        guard b.count >= 12 else { return .undefined }
        let boxSize = Int(b[0]) << 24 | Int(b[1]) << 16 | Int(b[2]) << 8 | Int(b[3])
        let end = min(b.count, max(16, boxSize))
        var brands: [String] = []
        var offset = 8
        while offset + 4 <= end {
            if offset != 12 { // bytes 12..<16 are the minor version, not a brand
                brands.append(String(decoding: b[offset..<offset + 4], as: UTF8.self))
            }
            offset += 4
        }
        let heic: Set = ["heic", "heix", "hevc", "hevx", "heim", "heis", "hevm", "hevs"]
        let avif: Set = ["avif", "avis"]
        let heif: Set = ["mif1", "msf1", "mif2"]
        if let major = brands.first {
            if heic.contains(major) { return .heic }
            if avif.contains(major) { return .avif }
        }
        if brands.contains(where: avif.contains) { return .avif }
        if brands.contains(where: heic.contains) { return .heic }
        if brands.contains(where: heif.contains) { return .heif }
        return .undefined
    }

    /// SVG: text whose first non-blank character is `<` and which has an `<svg` element early on.
    private static func isSVG(_ b: UnsafeBufferPointer<UInt8>) -> Bool {
        var i = 0
        if b.count >= 3, b[0] == 0xEF, b[1] == 0xBB, b[2] == 0xBF { i = 3 }
        while i < b.count, [0x20, 0x09, 0x0A, 0x0D].contains(b[i]) { i += 1 }
        guard i < b.count, b[i] == UInt8(ascii: "<") else { return false }
        let window = b[i..<min(b.count, i + 4096)]
        let needle = Array("<svg".utf8)
        guard window.count >= needle.count else { return false }
        var j = window.startIndex
        while j + needle.count <= window.endIndex {
            if window[j] == needle[0], Array(window[j..<j + needle.count]) == needle {
                let next = j + needle.count
                if next == window.endIndex { return true }
                let c = window[next]
                return c == 0x20 || c == 0x09 || c == 0x0A || c == 0x0D || c == UInt8(ascii: ">")
            }
            j += 1
        }
        return false
    }
}
