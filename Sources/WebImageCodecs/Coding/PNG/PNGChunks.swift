/// Walks the chunks of a PNG stream without decoding anything.
struct PNGChunks: Sequence, IteratorProtocol {
    /// One chunk: its four-letter type and where its payload sits in the buffer.
    struct Chunk {
        let type: UInt32
        /// Offset of the payload (after length and type).
        let dataOffset: Int
        let length: Int
        /// Offset of the chunk's length field: the start of the whole chunk.
        var start: Int { dataOffset - 8 }
        /// One past the CRC: the end of the whole chunk.
        var end: Int { dataOffset + length + 4 }
    }

    static func fourCC(_ s: StaticString) -> UInt32 {
        s.withUTF8Buffer { b in UInt32(b[0]) << 24 | UInt32(b[1]) << 16 | UInt32(b[2]) << 8 | UInt32(b[3]) }
    }
    static let IHDR = fourCC("IHDR"), IDAT = fourCC("IDAT"), IEND = fourCC("IEND")
    static let acTL = fourCC("acTL"), fcTL = fourCC("fcTL"), fdAT = fourCC("fdAT")
    static let eXIf = fourCC("eXIf"), PLTE = fourCC("PLTE"), tRNS = fourCC("tRNS")

    private let bytes: UnsafeBufferPointer<UInt8>
    private var offset = 8

    /// Iterates the chunks that fit completely in `bytes` (which starts with the PNG signature).
    init(_ bytes: UnsafeBufferPointer<UInt8>) { self.bytes = bytes }

    mutating func next() -> Chunk? {
        guard offset + 12 <= bytes.count else { return nil }
        let length = Int(readUInt32(bytes, offset))
        let type = readUInt32(bytes, offset + 4)
        let dataOffset = offset + 8
        guard length <= Int(Int32.max), dataOffset + length + 4 <= bytes.count else { return nil }
        offset = dataOffset + length + 4
        return Chunk(type: type, dataOffset: dataOffset, length: length)
    }

    /// True when an `acTL` chunk comes before the first `IDAT`: the file is an APNG.
    static func hasAnimationControl(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        for chunk in PNGChunks(bytes) {
            if chunk.type == acTL { return true }
            if chunk.type == IDAT { return false }
        }
        return false
    }
}

/// Reads a big-endian 32-bit value at `offset`.
@inline(__always)
func readUInt32(_ b: UnsafeBufferPointer<UInt8>, _ offset: Int) -> UInt32 {
    UInt32(b[offset]) << 24 | UInt32(b[offset + 1]) << 16 | UInt32(b[offset + 2]) << 8 | UInt32(b[offset + 3])
}

/// Reads a big-endian 16-bit value at `offset`.
@inline(__always)
func readUInt16(_ b: UnsafeBufferPointer<UInt8>, _ offset: Int) -> UInt16 {
    UInt16(b[offset]) << 8 | UInt16(b[offset + 1])
}
