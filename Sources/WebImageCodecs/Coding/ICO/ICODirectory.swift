/// An ICO or CUR file's directory (ICONDIR: a 6-byte header, then 16 bytes per entry), read
/// without decoding any pixel, with each entry's real size taken from the image it points at
/// (a PNG's IHDR or a DIB header; the directory's one-byte sizes cannot say 256 or more).
///
/// Entries whose bytes do not lie inside the file, or whose image header is unusable, are left
/// out; a file with none left is refused with the reason for the first.
struct ICODirectory {
    struct Entry {
        /// Its place in the directory.
        let index: Int
        /// Where its image starts and how many bytes it has (inside the file).
        let offset: Int
        let length: Int
        /// A PNG image (decoded by the library's PNG coder) rather than a DIB (gdk-pixbuf).
        let isPNG: Bool
        let size: PixelSize
        let bitCount: Int
        /// The 16 directory bytes, as written.
        let record: ArraySlice<UInt8>
    }

    /// True for a cursor (CUR, type 2).
    let isCursor: Bool
    /// The usable entries, in directory order (at least one).
    let entries: [Entry]

    static let pngSignature: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]

    init(_ b: UnsafeBufferPointer<UInt8>) throws {
        guard b.count >= 6, b[0] == 0, b[1] == 0, b[2] == 1 || b[2] == 2, b[3] == 0 else {
            throw WebImageError.badData("The data does not start with an ICO or CUR header.")
        }
        isCursor = b[2] == 2
        let count = Int(DIBHeader.u16(b, 4))
        guard count > 0 else { throw WebImageError.badData("The ICO directory lists no images.") }
        let directoryEnd = 6 + 16 * count
        guard directoryEnd <= b.count else {
            throw WebImageError.badData("The ICO directory lists \(count) images but the file (\(b.count) bytes) ends inside the directory: the file is truncated.")
        }
        var usable: [Entry] = []
        var firstProblem: String?
        for index in 0..<count {
            let at = 6 + 16 * index
            let length = Int(DIBHeader.u32(b, at + 8)), offset = Int(DIBHeader.u32(b, at + 12))
            let record = Array(b[at..<at + 16])[...]
            do {
                usable.append(try Self.entry(b, index: index, offset: offset, length: length,
                                             directoryEnd: directoryEnd, record: record))
            } catch let error as WebImageError {
                firstProblem = firstProblem ?? error.message
            }
        }
        guard !usable.isEmpty else {
            throw WebImageError.badData("None of the \(count) ICO directory entries is usable; \(firstProblem ?? "").")
        }
        entries = usable
    }

    private static func entry(_ b: UnsafeBufferPointer<UInt8>, index: Int, offset: Int, length: Int,
                              directoryEnd: Int, record: ArraySlice<UInt8>) throws -> Entry {
        guard length > 0, offset >= directoryEnd, offset <= b.count, length <= b.count - offset else {
            throw WebImageError.badData("entry \(index) points at bytes \(offset)..<\(offset + length), outside the \(b.count)-byte file (its images start at \(directoryEnd))")
        }
        let image = UnsafeBufferPointer(rebasing: b[offset..<offset + length])
        if image.count >= 8, Array(image.prefix(8)) == pngSignature {
            guard image.count >= 24 else { throw WebImageError.badData("entry \(index)'s PNG ends inside its header") }
            func be32(_ at: Int) -> Int { Int(image[at]) << 24 | Int(image[at + 1]) << 16 | Int(image[at + 2]) << 8 | Int(image[at + 3]) }
            let size = PixelSize(width: be32(16), height: be32(20))
            guard size.width > 0, size.height > 0 else { throw WebImageError.badData("entry \(index)'s PNG declares \(size)") }
            return Entry(index: index, offset: offset, length: length, isPNG: true, size: size, bitCount: 32, record: record)
        }
        // gdk-pixbuf's ICO loader reads a 40-byte BITMAPINFOHEADER (or a later, longer one),
        // uncompressed, whose height counts the colour rows and the mask rows.
        guard let dib = DIBHeader(image, at: 0), dib.headerSize >= 40, image.count >= dib.headerSize else {
            throw WebImageError.badData("entry \(index) has no usable bitmap header")
        }
        let height = abs(dib.height) / 2
        guard dib.width > 0, dib.width <= 1 << 16, height > 0, height <= 1 << 16, dib.compression == 0,
              [1, 4, 8, 16, 24, 32].contains(dib.bitCount) else {
            throw WebImageError.badData("entry \(index)'s bitmap header declares \(dib.width) x \(dib.height) at \(dib.bitCount) bits, compression \(dib.compression)")
        }
        // The colour rows, then (except for 32-bit entries, whose alpha gdk-pixbuf uses instead)
        // the 1-bit mask rows must all be there: gdk-pixbuf would leave missing rows blank.
        // gdk-pixbuf's ICO loader reads biClrUsed palette entries at any depth.
        guard let entries = dib.paletteEntries, dib.bitCount <= 8 || dib.colorsUsed <= 256 else {
            throw WebImageError.badData("entry \(index)'s bitmap header declares \(dib.colorsUsed) palette entries for \(dib.bitCount)-bit pixels")
        }
        let palette = (dib.bitCount <= 8 ? entries : dib.colorsUsed) * 4
        let mask = dib.bitCount == 32 ? 0 : DIBHeader.rowBytes(width: dib.width, bitCount: 1) * height
        let needed = dib.headerSize + palette + DIBHeader.rowBytes(width: dib.width, bitCount: dib.bitCount) * height + mask
        guard needed <= image.count else {
            throw WebImageError.badData("entry \(index)'s \(dib.width)x\(height) bitmap needs \(needed) bytes and has \(image.count)")
        }
        return Entry(index: index, offset: offset, length: length, isPNG: false,
                     size: PixelSize(width: dib.width, height: height), bitCount: dib.bitCount, record: record)
    }

    /// The largest entry (most pixels, then most bits per pixel).
    var largest: Entry {
        entries.max { ($0.size.area, $0.bitCount) < ($1.size.area, $1.bitCount) }!
    }

    /// The entry to decode for `options`: for a reduced size, the smallest entry covering the
    /// size the largest would be reduced to, else the largest; only entries within the limits
    /// when a reduced size allows choosing a smaller one.
    func choose(for options: DecodeOptions) throws -> Entry {
        let largest = largest
        if (try? options.limits.check(largest.size, format: .ico)) != nil, !options.allowsScaleDown { return largest }
        let allowed = entries.filter { (try? options.limits.check($0.size, format: .ico)) != nil }
        guard options.allowsScaleDown, let best = allowed.max(by: { ($0.size.area, $0.bitCount) < ($1.size.area, $1.bitCount) }) else {
            try options.limits.check(largest.size, format: .ico)
            return largest
        }
        let target = options.targetSize(for: best.size)
        let covering = allowed.filter { $0.size.width >= target.width && $0.size.height >= target.height }
        return covering.min { ($0.size.area, -$0.bitCount) < ($1.size.area, -$1.bitCount) } ?? best
    }
}
