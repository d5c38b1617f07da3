/// Reads ISO-BMFF boxes and the HEIF item boxes in them from untrusted bytes: every read is
/// bounds-checked, and anything malformed reads as `nil` or as nothing.
struct HEIFBoxReader {
    let bytes: UnsafeBufferPointer<UInt8>

    struct Box {
        let type: String
        let payload: Range<Int>
    }

    /// One entry of an `iref` box.
    struct Reference {
        let type: String
        let from: Int
        let to: [Int]
    }

    /// The properties of an item that the graph reads.
    struct ItemProperties {
        /// From `ispe`.
        var size: PixelSize?
        /// From `auxC`.
        var auxiliaryType: String?
    }

    /// The boxes laid end to end in `box`'s payload after its first `skip` bytes (a full box's
    /// version and flags, an entry count); none when the payload is shorter than that.
    func children(of box: Box, after skip: Int) -> [Box] {
        guard skip >= 0, skip <= box.payload.count else { return [] }
        return boxes(in: (box.payload.lowerBound + skip)..<box.payload.upperBound)
    }

    /// The boxes laid end to end in `range` (stops at the first malformed header).
    func boxes(in range: Range<Int>) -> [Box] {
        var found: [Box] = []
        var at = range.lowerBound
        while at >= 0, at + 8 <= range.upperBound, let size32 = read(at, 4) {
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

    func primaryID(_ pitm: Box) -> Int? {
        guard let version = read(pitm.payload.lowerBound, 1, within: pitm.payload) else { return nil }
        return read(pitm.payload.lowerBound + 4, version == 0 ? 2 : 4, within: pitm.payload)
    }

    /// Each item's type, from the `infe` boxes (version 2 or 3) inside `iinf`.
    func itemTypes(_ iinf: Box) -> [Int: String] {
        guard let version = read(iinf.payload.lowerBound, 1, within: iinf.payload) else { return [:] }
        var types: [Int: String] = [:]
        for infe in children(of: iinf, after: 4 + (version == 0 ? 2 : 4)) where infe.type == "infe" {
            let p = infe.payload
            guard let infeVersion = read(p.lowerBound, 1, within: p), infeVersion >= 2 else { continue }
            let idSize = infeVersion == 2 ? 2 : 4
            guard let itemID = read(p.lowerBound + 4, idSize, within: p),
                  p.lowerBound + 4 + idSize + 2 + 4 <= p.upperBound, types[itemID] == nil else { continue }
            let typeAt = p.lowerBound + 4 + idSize + 2
            types[itemID] = String(decoding: bytes[typeAt..<(typeAt + 4)], as: UTF8.self)
        }
        return types
    }

    /// The entries of an `iref` box, in file order.
    func references(_ iref: Box) -> [Reference] {
        guard let version = read(iref.payload.lowerBound, 1, within: iref.payload) else { return [] }
        let idSize = version == 0 ? 2 : 4
        var found: [Reference] = []
        for entry in children(of: iref, after: 4) {
            let p = entry.payload
            guard let from = read(p.lowerBound, idSize, within: p),
                  let count = read(p.lowerBound + idSize, 2, within: p) else { continue }
            var to: [Int] = []
            to.reserveCapacity(min(count, p.count / idSize))
            for index in 0..<count {
                guard let id = read(p.lowerBound + idSize + 2 + index * idSize, idSize, within: p) else { break }
                to.append(id)
            }
            found.append(Reference(type: entry.type, from: from, to: to))
        }
        return found
    }

    /// The `ispe` and `auxC` properties of each item, from `iprp`'s `ipco` and first `ipma`.
    func itemProperties(_ iprp: Box) -> [Int: ItemProperties] {
        let children = boxes(in: iprp.payload)
        guard let ipco = children.first(where: { $0.type == "ipco" }),
              let ipma = children.first(where: { $0.type == "ipma" }) else { return [:] }
        let properties = boxes(in: ipco.payload)
        let p = ipma.payload
        guard let version = read(p.lowerBound, 1, within: p), let flags = read(p.lowerBound + 3, 1, within: p),
              let count = read(p.lowerBound + 4, 4, within: p) else { return [:] }
        let idSize = version < 1 ? 2 : 4, indexSize = flags & 1 != 0 ? 2 : 1
        var found: [Int: ItemProperties] = [:]
        var at = p.lowerBound + 8
        for _ in 0..<min(count, p.count) {
            guard let item = read(at, idSize, within: p), let associations = read(at + idSize, 1, within: p) else { break }
            at += idSize + 1
            var entry = found[item] ?? ItemProperties()
            for _ in 0..<associations {
                guard let field = read(at, indexSize, within: p) else { return found }
                at += indexSize
                let index = field & (indexSize == 2 ? 0x7FFF : 0x7F)
                guard index > 0, index <= properties.count else { continue }
                let property = properties[index - 1]
                switch property.type {
                case "ispe":
                    let q = property.payload
                    if let width = read(q.lowerBound + 4, 4, within: q), let height = read(q.lowerBound + 8, 4, within: q) {
                        entry.size = PixelSize(width: width, height: height)
                    }
                case "auxC":
                    let q = property.payload
                    guard q.count > 4 else { break }
                    let text = bytes[(q.lowerBound + 4)..<q.upperBound].prefix { $0 != 0 }
                    entry.auxiliaryType = String(decoding: text, as: UTF8.self)
                default: break
                }
            }
            found[item] = entry
        }
        return found
    }

    /// Construction method, offset and length of item `id`'s first extent in `iloc`.
    func location(of id: Int, in iloc: Box) -> (method: Int, offset: Int, length: Int)? {
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
    func read(_ at: Int, _ size: Int, within range: Range<Int>? = nil) -> Int? {
        let bounds = range ?? 0..<bytes.count
        guard [0, 1, 2, 4, 8].contains(size), at >= bounds.lowerBound, at <= bounds.upperBound - size else { return nil }
        var value: UInt64 = 0
        for i in 0..<size { value = value << 8 | UInt64(bytes[at + i]) }
        return value > UInt64(Int.max) ? nil : Int(value)
    }
}
