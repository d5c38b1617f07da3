/// The 16- and 32-bit integers of a TIFF structure (an EXIF block) in its byte order: `II`
/// little-endian, `MM` big-endian. Every read is checked against the bytes (nil past either end).
/// `Bytes` is indexed from 0 (an array or a buffer pointer).
package struct TIFFIntegers<Bytes: RandomAccessCollection> where Bytes.Element == UInt8, Bytes.Index == Int {
    package let bytes: Bytes
    package let little: Bool

    /// The reader for `bytes` whose byte-order mark is at `base`; nil when there is none.
    package init?(_ bytes: Bytes, markAt base: Int = 0) {
        guard base >= 0, base + 2 <= bytes.count else { return nil }
        switch (bytes[base], bytes[base + 1]) {
        case (0x49, 0x49): little = true
        case (0x4D, 0x4D): little = false
        default: return nil
        }
        self.bytes = bytes
    }

    package func u16(_ at: Int) -> Int? {
        guard at >= 0, at + 2 <= bytes.count else { return nil }
        return little ? Int(bytes[at]) | Int(bytes[at + 1]) << 8 : Int(bytes[at]) << 8 | Int(bytes[at + 1])
    }

    package func u32(_ at: Int) -> Int? {
        guard let a = u16(at), let b = u16(at + 2) else { return nil }
        return little ? a | b << 16 : a << 16 | b
    }
}
