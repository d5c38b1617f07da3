import Foundation

/// Builds the `meta` of a HEIF file from a list of items and references, for the item-graph
/// checks: the structure libheif reads (`hdlr`, `pitm`, `iinf`, `iloc` into `idat`, `iref`,
/// `iprp`), with no coded picture data.
struct HEIFItemFile {
    struct Item {
        var id: Int
        var type: String
        /// The `ispe` property, when set.
        var size: (width: Int, height: Int)?
        /// The `auxC` property, when set.
        var auxiliaryType: String?
        /// The item's data, stored in `idat`.
        var data: [UInt8] = []
    }

    var primary: Int
    var items: [Item]
    var references: [(type: String, from: Int, to: [Int])] = []

    /// A grid record: `rows`×`columns` tiles on a `width`×`height` canvas (16-bit fields).
    static func gridData(rows: Int, columns: Int, width: Int, height: Int) -> [UInt8] {
        [0, 0, UInt8(rows - 1), UInt8(columns - 1)] + be(width, 2) + be(height, 2)
    }

    /// An overlay record: a `width`×`height` canvas with `layers` layers at the origin.
    static func overlayData(width: Int, height: Int, layers: Int) -> [UInt8] {
        [0, 0] + [UInt8](repeating: 0xFF, count: 8) + be(width, 2) + be(height, 2)
            + [UInt8](repeating: 0, count: 4 * layers)
    }

    var bytes: Data {
        let ftyp = Self.box("ftyp", Array("heic".utf8) + Self.be(0, 4) + Array("mif1heic".utf8))
        let hdlr = Self.fullBox("hdlr", payload: Self.be(0, 4) + Array("pict".utf8) + Self.be(0, 12) + [0])
        let pitm = Self.fullBox("pitm", payload: Self.be(primary, 2))
        let infes = items.flatMap { item in
            Self.fullBox("infe", version: 2, payload: Self.be(item.id, 2) + Self.be(0, 2) + Array(item.type.utf8) + [0])
        }
        let iinf = Self.fullBox("iinf", payload: Self.be(items.count, 2) + infes)
        let irefEntries = references.flatMap { reference in
            Self.box(reference.type, Self.be(reference.from, 2) + Self.be(reference.to.count, 2)
                + reference.to.flatMap { Self.be($0, 2) })
        }
        let iref = Self.fullBox("iref", payload: irefEntries)
        let (iprp, idat, iloc) = (properties(), Self.box("idat", items.flatMap(\.data)), location())
        let meta = Self.fullBox("meta", payload: hdlr + pitm + iinf + iloc + idat + iref + iprp)
        return Data(ftyp + meta)
    }

    /// `iloc` version 1: each item with data at its place in `idat` (construction method 1).
    private func location() -> [UInt8] {
        var offset = 0
        var entries: [UInt8] = []
        var count = 0
        for item in items where !item.data.isEmpty {
            entries += Self.be(item.id, 2) + Self.be(1, 2) + Self.be(0, 2) + Self.be(1, 2)
                + Self.be(offset, 4) + Self.be(item.data.count, 4)
            offset += item.data.count
            count += 1
        }
        return Self.fullBox("iloc", version: 1, payload: [0x44, 0x00] + Self.be(count, 2) + entries)
    }

    /// `ipco` with each item's `ispe` and `auxC` and one shared 8-bit `pixi`; `ipma` joining them.
    private func properties() -> [UInt8] {
        var boxes: [[UInt8]] = [Self.fullBox("pixi", payload: [3, 8, 8, 8])]
        var associations: [UInt8] = []
        for item in items {
            var indices: [Int] = [1]
            if let size = item.size {
                boxes.append(Self.fullBox("ispe", payload: Self.be(size.width, 4) + Self.be(size.height, 4)))
                indices.append(boxes.count)
            }
            if let auxiliaryType = item.auxiliaryType {
                boxes.append(Self.fullBox("auxC", payload: Array(auxiliaryType.utf8) + [0]))
                indices.append(boxes.count)
            }
            associations += Self.be(item.id, 2) + [UInt8(indices.count)] + indices.map { UInt8($0) }
        }
        let ipco = Self.box("ipco", boxes.flatMap { $0 })
        let ipma = Self.fullBox("ipma", payload: Self.be(items.count, 4) + associations)
        return Self.box("iprp", ipco + ipma)
    }

    static func be(_ value: Int, _ size: Int) -> [UInt8] {
        (0..<size).map { UInt8(truncatingIfNeeded: value >> (8 * (size - 1 - $0))) }
    }

    static func box(_ type: String, _ payload: [UInt8]) -> [UInt8] {
        be(8 + payload.count, 4) + Array(type.utf8) + payload
    }

    static func fullBox(_ type: String, version: UInt8 = 0, payload: [UInt8]) -> [UInt8] {
        box(type, [version, 0, 0, 0] + payload)
    }
}
