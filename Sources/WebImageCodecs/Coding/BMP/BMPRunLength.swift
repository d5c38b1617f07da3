/// Walks a BMP's run-length codes (BI_RLE8, BI_RLE4) without drawing anything, to tell whether
/// the stream is whole: gdk-pixbuf draws a stream cut short without a word.
enum BMPRunLength {
    /// True when the codes reach the end-of-bitmap code (`00 01`) before the bytes end.
    static func isTerminated(_ b: UnsafeBufferPointer<UInt8>, fourBit: Bool) -> Bool {
        var i = 0
        while i + 1 < b.count {
            let count = Int(b[i]), code = Int(b[i + 1])
            i += 2
            guard count == 0 else { continue }        // an encoded run: count, colour
            switch code {
            case 0: continue                          // end of line
            case 1: return true                       // end of bitmap
            case 2: i += 2                            // delta: dx, dy
            default:
                // An absolute run of `code` pixels, padded to a 16-bit boundary.
                let bytes = fourBit ? (code + 1) / 2 : code
                i += (bytes + 1) & ~1
            }
        }
        return false
    }
}
