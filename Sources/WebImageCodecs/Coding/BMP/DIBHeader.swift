/// The facts of a Windows device-independent bitmap header (BITMAPCOREHEADER, BITMAPINFOHEADER
/// and its later versions), as BMP files and ICO entries carry it: read before any pixel is
/// decoded, so the decode limits and gdk-pixbuf's own assumptions can be checked first.
struct DIBHeader {
    /// The header's own size: 12 (core), 16 or 64 (OS/2 2.x), 40, 52, 56, 108 or 124.
    let headerSize: Int
    let width: Int
    /// The height as stored: negative for rows stored top to bottom; an ICO entry's is doubled.
    let height: Int
    let bitCount: Int
    /// BI_RGB (0), BI_RLE8, BI_RLE4, BI_BITFIELDS, …; 0 for the core header (and when the
    /// bytes end before the field: the sniffer reads headers from a file's first bytes).
    let compression: Int
    /// biClrUsed: palette entries stored (0: as many as the depth allows); 0 for short headers.
    let colorsUsed: Int

    static let knownSizes: Set = [12, 16, 40, 52, 56, 64, 108, 124]
    static let bitCounts: Set = [1, 2, 4, 8, 16, 24, 32]

    /// Reads the header at `offset` of `b`; nil when it is cut short or its size is unknown.
    init?(_ b: UnsafeBufferPointer<UInt8>, at offset: Int) {
        guard offset >= 0, offset + 16 <= b.count else { return nil }
        let size = Int(Self.u32(b, offset))
        guard Self.knownSizes.contains(size) else { return nil }
        headerSize = size
        if size == 12 {
            width = Int(Self.u16(b, offset + 4))
            height = Int(Self.u16(b, offset + 6))
            bitCount = Int(Self.u16(b, offset + 10))
            compression = 0
            colorsUsed = 0
        } else {
            width = Int(Int32(bitPattern: Self.u32(b, offset + 4)))
            height = Int(Int32(bitPattern: Self.u32(b, offset + 8)))
            bitCount = Int(Self.u16(b, offset + 14))
            // The 16-byte OS/2 header ends before the compression field.
            compression = size > 16 && offset + 20 <= b.count ? Int(Self.u32(b, offset + 16)) : 0
            colorsUsed = size >= 40 && offset + 36 <= b.count ? Int(Self.u32(b, offset + 32)) : 0
        }
    }

    /// Bytes in one uncompressed row of `bitCount`-bit pixels (rows are padded to 4 bytes).
    static func rowBytes(width: Int, bitCount: Int) -> Int {
        (width * bitCount + 31) / 32 * 4
    }

    /// The palette's entries as stored, for depths of 8 bits or less; nil when the header
    /// declares more than the depth can index (a corrupt header: gdk-pixbuf's BMP loader
    /// would take such a count, read as a negative number, for an allocation size).
    var paletteEntries: Int? {
        guard bitCount <= 8 else { return 0 }
        guard colorsUsed <= 1 << bitCount else { return nil }
        return colorsUsed == 0 ? 1 << bitCount : colorsUsed
    }

    /// True for the uncompressed layouts (BI_RGB, BI_BITFIELDS, BI_ALPHABITFIELDS), whose size
    /// follows from the header.
    var isUncompressed: Bool { [0, 3, 6].contains(compression) }

    /// True for run-length encoding (BI_RLE8, BI_RLE4).
    var isRunLength: Bool { compression == 1 || compression == 2 }

    static func u16(_ b: UnsafeBufferPointer<UInt8>, _ at: Int) -> UInt16 {
        UInt16(b[at]) | UInt16(b[at + 1]) << 8
    }

    static func u32(_ b: UnsafeBufferPointer<UInt8>, _ at: Int) -> UInt32 {
        UInt32(b[at]) | UInt32(b[at + 1]) << 8 | UInt32(b[at + 2]) << 16 | UInt32(b[at + 3]) << 24
    }
}
