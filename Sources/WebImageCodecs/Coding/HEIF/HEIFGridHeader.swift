/// Reads what libheif 1.15 trusts too far about a HEIF file's primary item, before libheif sees
/// the file: the output size an image grid declares, and whether an `iden` item's reference
/// leads to an image.
///
/// libheif 1.15 sizes a grid's canvas from the grid's own data, not from the item's `ispe`
/// property (which is what its API reports), and allows up to 32767 pixels a side: a file whose
/// `ispe` says 64×64 can make it allocate gigabytes. The decoder checks this size against the
/// limits too. Only the boxes needed are read (`pitm`, `iinf`/`infe`, `iloc`, `idat`, `iref` in
/// `meta`); anything unexpected gives `nil` (or `false`), leaving the file to libheif's own checks.
struct HEIFGridHeader {
    private let bytes: UnsafeBufferPointer<UInt8>

    /// The declared canvas size when the primary item of the file in `bytes` is a grid.
    static func primaryGridSize(_ bytes: UnsafeBufferPointer<UInt8>) -> PixelSize? {
        HEIFGridHeader(bytes: bytes).primaryGridSize()
    }

    /// The boxes inside `meta` and the primary item's ID, when the file has both.
    private func primaryItem() -> (children: [Box], primary: Int)? {
        guard let meta = boxes(in: 0..<bytes.count).first(where: { $0.type == "meta" }) else { return nil }
        let children = boxes(in: (meta.payload.lowerBound + 4)..<meta.payload.upperBound) // a full box
        guard let pitm = children.first(where: { $0.type == "pitm" }), let primary = primaryID(pitm) else { return nil }
        return (children, primary)
    }

    private func primaryGridSize() -> PixelSize? {
        guard let (children, primary) = primaryItem() else { return nil }
        func child(_ type: String) -> Box? { children.first { $0.type == type } }
        guard let iinf = child("iinf"), itemType(of: primary, in: iinf) == "grid",
              let iloc = child("iloc"), let extent = location(of: primary, in: iloc) else { return nil }
        let base: Int
        switch extent.method {
        case 0: base = 0
        case 1:
            guard let idat = child("idat") else { return nil }
            base = idat.payload.lowerBound
        default: return nil
        }
        let (start, overflow) = base.addingReportingOverflow(extent.offset)
        guard !overflow, extent.length >= 8, start <= bytes.count - 8 else { return nil }
        // version (0), flags (bit 0: 32-bit sizes), rows - 1, columns - 1, width, height
        let wide = bytes[start + 1] & 1 != 0
        let fieldSize = wide ? 4 : 2
        guard start + 4 + 2 * fieldSize <= bytes.count,
              let width = read(start + 4, fieldSize), let height = read(start + 4 + fieldSize, fieldSize) else { return nil }
        return PixelSize(width: width, height: height)
    }

    /// Whether the primary item is an `iden` derived image whose `dimg` reference does not lead
    /// to an image item of the file (directly or through further `iden` items, at most 8 deep).
    /// libheif 1.15 asserts that the referenced image exists and aborts the process otherwise.
    static func primaryIdentityIsDangling(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        HEIFGridHeader(bytes: bytes).primaryIdentityIsDangling()
    }

    /// The item types libheif 1.15 holds as images.
    private static let imageTypes: Set<String> = ["hvc1", "av01", "grid", "iden", "iovl", "jpeg"]

    private func primaryIdentityIsDangling() -> Bool {
        guard let (children, primary) = primaryItem(),
              let iinf = children.first(where: { $0.type == "iinf" }),
              itemType(of: primary, in: iinf) == "iden" else { return false }
        let iref = children.first { $0.type == "iref" }
        var item = primary
        for _ in 0..<8 {
            guard let iref, let target = derivedSource(of: item, in: iref),
                  let type = itemType(of: target, in: iinf), Self.imageTypes.contains(type) else { return true }
            guard type == "iden" else { return false }
            item = target
        }
        return true
    }

    /// The first item `id`'s `dimg` reference in `iref` points to.
    private func derivedSource(of id: Int, in iref: Box) -> Int? {
        guard let version = read(iref.payload.lowerBound, 1, within: iref.payload) else { return nil }
        let idSize = version == 0 ? 2 : 4
        for reference in boxes(in: (iref.payload.lowerBound + 4)..<iref.payload.upperBound) where reference.type == "dimg" {
            let p = reference.payload
            guard let from = read(p.lowerBound, idSize, within: p), from == id,
                  let count = read(p.lowerBound + idSize, 2, within: p), count > 0 else { continue }
            return read(p.lowerBound + idSize + 2, idSize, within: p)
        }
        return nil
    }

    private struct Box {
        let type: String
        let payload: Range<Int>
    }

    /// The boxes laid end to end in `range` (stops at the first malformed header).
    private func boxes(in range: Range<Int>) -> [Box] {
        var found: [Box] = []
        var at = range.lowerBound
        while at + 8 <= range.upperBound, let size32 = read(at, 4) {
            var header = 8, size = size32
            if size == 1 {
                guard let large = read(at + 8, 8) else { break }
                header = 16
                size = large
            } else if size == 0 {
                size = range.upperBound - at
            }
            guard size >= header, size <= range.upperBound - at else { break }
            let type = String(decoding: bytes[(at + 4)..<(at + 8)], as: UTF8.self)
            found.append(Box(type: type, payload: (at + header)..<(at + size)))
            at += size
        }
        return found
    }

    private func primaryID(_ pitm: Box) -> Int? {
        let version = pitm.payload.isEmpty ? 0 : Int(bytes[pitm.payload.lowerBound])
        return read(pitm.payload.lowerBound + 4, version == 0 ? 2 : 4, within: pitm.payload)
    }

    /// The type of item `id` from its `infe` (version 2 or 3) inside `iinf`.
    private func itemType(of id: Int, in iinf: Box) -> String? {
        guard let version = read(iinf.payload.lowerBound, 1, within: iinf.payload) else { return nil }
        let entries = iinf.payload.lowerBound + 4 + (version == 0 ? 2 : 4)
        for infe in boxes(in: entries..<iinf.payload.upperBound) where infe.type == "infe" {
            let p = infe.payload
            guard let infeVersion = read(p.lowerBound, 1, within: p), infeVersion >= 2 else { continue }
            let idSize = infeVersion == 2 ? 2 : 4
            guard let itemID = read(p.lowerBound + 4, idSize, within: p), itemID == id,
                  p.lowerBound + 4 + idSize + 2 + 4 <= p.upperBound else { continue }
            let typeAt = p.lowerBound + 4 + idSize + 2
            return String(decoding: bytes[typeAt..<(typeAt + 4)], as: UTF8.self)
        }
        return nil
    }

    /// Construction method, offset and length of item `id`'s first extent in `iloc`.
    private func location(of id: Int, in iloc: Box) -> (method: Int, offset: Int, length: Int)? {
        let p = iloc.payload
        guard let version = read(p.lowerBound, 1, within: p), version <= 2,
              let sizes = read(p.lowerBound + 4, 1, within: p), let sizes2 = read(p.lowerBound + 5, 1, within: p) else { return nil }
        let offsetSize = sizes >> 4, lengthSize = sizes & 0xF, baseSize = sizes2 >> 4
        let indexSize = version == 0 ? 0 : sizes2 & 0xF
        var at = p.lowerBound + 6
        guard let count = read(at, version < 2 ? 2 : 4, within: p) else { return nil }
        at += version < 2 ? 2 : 4
        for _ in 0..<min(count, 65_536) {
            guard let itemID = read(at, version < 2 ? 2 : 4, within: p) else { return nil }
            at += version < 2 ? 2 : 4
            var method = 0
            if version > 0 {
                guard let field = read(at, 2, within: p) else { return nil }
                method = field & 0xF
                at += 2
            }
            at += 2 // data_reference_index
            guard let base = read(at, baseSize, within: p) else { return nil }
            at += baseSize
            guard let extents = read(at, 2, within: p) else { return nil }
            at += 2
            var first: (offset: Int, length: Int)?
            for _ in 0..<extents {
                at += indexSize
                guard let offset = read(at, offsetSize, within: p),
                      let length = read(at + offsetSize, lengthSize, within: p) else { return nil }
                at += offsetSize + lengthSize
                if first == nil { first = (offset, length) }
            }
            if itemID == id, let first {
                let (offset, overflow) = base.addingReportingOverflow(first.offset)
                return overflow ? nil : (method, offset, first.length)
            }
        }
        return nil
    }

    /// The big-endian unsigned integer of `size` bytes (0, 1, 2, 4 or 8) at `at`, inside
    /// `range` (default: the whole file); nil when it does not fit or passes `Int.max`.
    private func read(_ at: Int, _ size: Int, within range: Range<Int>? = nil) -> Int? {
        let bounds = range ?? 0..<bytes.count
        guard [0, 1, 2, 4, 8].contains(size), at >= bounds.lowerBound, at + size <= bounds.upperBound else { return nil }
        var value: UInt64 = 0
        for i in 0..<size { value = value << 8 | UInt64(bytes[at + i]) }
        return value > UInt64(Int.max) ? nil : Int(value)
    }
}
