/// How many frames a GIF, WebP or animated PNG holds, read from its structure without decoding a
/// pixel: GIF image descriptors (its compressed data skipped block by block), WebP `ANMF` chunks,
/// the APNG `acTL` chunk's frame count. A server plans an animation's whole cost from it before
/// decoding. Damaged data stops the walk: the frames counted up to there are returned.
enum DeclaredFrameCount {
    /// The frame count of `b` in `format`, or nil for other formats.
    static func of(_ b: UnsafeBufferPointer<UInt8>, format: ImageFormat) -> Int? {
        switch format {
        case .gif: gif(b)
        case .webp: webp(b)
        case .png, .apng: png(b)
        default: nil
        }
    }

    /// Image descriptors (`,`) between the header and the trailer (`;`), at least 1.
    static func gif(_ b: UnsafeBufferPointer<UInt8>) -> Int {
        guard b.count >= 13 else { return 1 }
        var at = 13
        if b[10] & 0x80 != 0 { at += 3 << (Int(b[10] & 7) + 1) }
        var frames = 0
        /// Skips a run of data sub-blocks (length-prefixed, ended by a zero length); false when cut short.
        func skipSubBlocks() -> Bool {
            while at < b.count {
                let length = Int(b[at])
                at += 1
                if length == 0 { return true }
                at += length
            }
            return false
        }
        loop: while at < b.count {
            switch b[at] {
            case 0x21:
                at += 2
                guard skipSubBlocks() else { break loop }
            case 0x2C:
                guard at + 10 <= b.count else { break loop }
                let packed = b[at + 9]
                at += 10
                if packed & 0x80 != 0 { at += 3 << (Int(packed & 7) + 1) }
                at += 1
                frames += 1
                guard skipSubBlocks() else { break loop }
            default:
                break loop
            }
        }
        return max(frames, 1)
    }

    /// `ANMF` chunks of a RIFF WebP, or 1 for a still one.
    static func webp(_ b: UnsafeBufferPointer<UInt8>) -> Int {
        var at = 12
        var frames = 0
        while at + 8 <= b.count {
            let size = Int(b[at + 4]) | Int(b[at + 5]) << 8 | Int(b[at + 6]) << 16 | Int(b[at + 7]) << 24
            if b[at] == 0x41, b[at + 1] == 0x4E, b[at + 2] == 0x4D, b[at + 3] == 0x46 { frames += 1 }
            at += 8 + size + (size & 1)
        }
        return max(frames, 1)
    }

    /// The `acTL` chunk's frame count (before the first `IDAT`), or 1 for a still PNG.
    static func png(_ b: UnsafeBufferPointer<UInt8>) -> Int {
        var at = 8
        while at + 12 <= b.count {
            let length = Int(b[at]) << 24 | Int(b[at + 1]) << 16 | Int(b[at + 2]) << 8 | Int(b[at + 3])
            let type = (b[at + 4], b[at + 5], b[at + 6], b[at + 7])
            if type == (0x61, 0x63, 0x54, 0x4C), length >= 8, at + 12 <= b.count {
                let frames = Int(b[at + 8]) << 24 | Int(b[at + 9]) << 16 | Int(b[at + 10]) << 8 | Int(b[at + 11])
                return max(frames, 1)
            }
            if type == (0x49, 0x44, 0x41, 0x54) { break }
            at += 12 + length
        }
        return 1
    }
}
