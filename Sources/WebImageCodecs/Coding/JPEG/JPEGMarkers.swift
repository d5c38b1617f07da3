/// Walking a JPEG byte stream marker by marker, without decoding anything.
///
/// A JPEG file is a sequence of `FF xx` markers, most followed by a big-endian length and a
/// payload; after each SOS (start of scan) marker comes entropy-coded data, in which `FF` only
/// appears stuffed (`FF 00`) or as a restart marker (`FF D0`…`FF D7`).
enum JPEGMarkers {
    static let startOfImage: UInt8 = 0xD8
    static let endOfImage: UInt8 = 0xD9
    static let startOfScan: UInt8 = 0xDA
    static let app1: UInt8 = 0xE1

    /// One marker segment: the marker code, where its `FF` sits, and its payload (after the length).
    struct Segment {
        let marker: UInt8
        let offset: Int
        let payload: Range<Int>
        /// Where the next marker may start.
        var end: Int { payload.upperBound }
    }

    /// The result of reading a segment at some offset.
    enum Read {
        case segment(Segment)
        /// The segment runs past the bytes available so far.
        case needMoreData
    }

    /// True for SOF markers that start a frame TurboJPEG may decode (not DHT, JPG or DAC).
    static func isStartOfFrame(_ marker: UInt8) -> Bool {
        marker >= 0xC0 && marker <= 0xCF && marker != 0xC4 && marker != 0xC8 && marker != 0xCC
    }

    /// Markers with no length field: TEM, RST0–7, SOI and EOI.
    static func isStandalone(_ marker: UInt8) -> Bool {
        marker == 0x01 || (marker >= 0xD0 && marker <= 0xD9)
    }

    /// Reads the segment whose marker starts at or after `offset`, skipping stray bytes and `FF`
    /// fill bytes the way libjpeg does.
    static func segment(in b: UnsafeBufferPointer<UInt8>, at offset: Int) -> Read {
        var i = offset
        while i < b.count, b[i] != 0xFF { i += 1 }
        while i + 1 < b.count, b[i + 1] == 0xFF { i += 1 }
        guard i + 1 < b.count else { return .needMoreData }
        let marker = b[i + 1]
        if isStandalone(marker) {
            return .segment(Segment(marker: marker, offset: i, payload: i + 2..<i + 2))
        }
        guard i + 3 < b.count else { return .needMoreData }
        let length = Int(b[i + 2]) << 8 | Int(b[i + 3])
        let payloadStart = i + 4
        let payloadEnd = i + 2 + max(length, 2)
        guard payloadEnd <= b.count else { return .needMoreData }
        return .segment(Segment(marker: marker, offset: i, payload: payloadStart..<payloadEnd))
    }

    /// Finds the marker that ends the entropy-coded data starting at `offset`.
    ///
    /// Returns the offset of that marker's `FF`, or `nil` with `resume` (where to continue once
    /// more bytes arrive) when the data so far ends inside the scan.
    static func endOfEntropyData(in b: UnsafeBufferPointer<UInt8>, from offset: Int) -> (end: Int?, resume: Int) {
        var i = offset
        let count = b.count
        while i + 1 < count {
            if b[i] == 0xFF {
                let next = b[i + 1]
                if next != 0 && next != 0xFF && !(next >= 0xD0 && next <= 0xD7) { return (i, i) }
                i += next == 0xFF ? 1 : 2
            } else {
                i += 1
            }
        }
        return (nil, max(offset, min(i, count)))
    }

    /// True when an EOI marker (`FF D9`) follows `offset`; searched from the end, where it
    /// normally is, so a complete file costs a few byte reads.
    static func hasEndOfImage(in b: UnsafeBufferPointer<UInt8>, after offset: Int) -> Bool {
        var i = b.count - 2
        while i > offset {
            if b[i] == 0xFF && b[i + 1] == endOfImage { return true }
            i -= 1
        }
        return false
    }
}
