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
        if has([0x49, 0x49, 0x2A, 0x00]) || has([0x4D, 0x4D, 0x00, 0x2A])
            || has([0x49, 0x49, 0x2B, 0x00]) || has([0x4D, 0x4D, 0x00, 0x2B]) { return .tiff }
        if has([0xFF, 0x0A]) || has([0, 0, 0, 0x0C, 0x4A, 0x58, 0x4C, 0x20, 0x0D, 0x0A, 0x87, 0x0A]) {
            return .jpegXL
        }
        if has(Array("%PDF-".utf8)) { return .pdf }
        if has(Array("BM".utf8)), isBMP(b) { return .bmp }
        if has([0, 0, 1, 0]), b.count >= 6, b[4] | b[5] != 0, b.count >= 22 { return .ico }
        if has(Array("ftyp".utf8), at: 4) { return isoMediaFormat(b) }
        if isSVG(b) { return .svg }
        return .undefined
    }

    /// BMP: "BM", then a DIB header whose size is one of the defined versions.
    private static func isBMP(_ b: UnsafeBufferPointer<UInt8>) -> Bool {
        guard b.count >= 26 else { return false }
        let dib = UInt32(b[14]) | UInt32(b[15]) << 8 | UInt32(b[16]) << 16 | UInt32(b[17]) << 24
        return [12, 16, 40, 52, 56, 64, 108, 124].contains(dib)
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
