/// The items of a HEIF file and how they refer to each other, read before libheif sees the file,
/// to refuse what libheif 1.15 trusts too far when it decodes an item:
///
/// - a derived image (`grid`, `iden`, `iovl`) whose `dimg` reference leads to an item that is
///   not an image (libheif asserts and aborts the process);
/// - a cycle of `dimg` or alpha (`auxl`) references (libheif recurses without end: Debian's build starts a tile-decoding thread at each level until none can start, and aborts);
/// - a grid or overlay canvas, which libheif sizes from the item's data and not from the `ispe`
///   it reports, past the limits;
/// - inputs decoded many times over: libheif decodes a tile once per reference to it, so a
///   small grid of one large tile would be hours of work. All the pixels decoded for an item may
///   be at most ``workAllowance(for:)``.
///
/// Only `meta`'s `pitm`, `iinf`/`infe`, `iloc`, `idat`, `iref` and `iprp` (`ipco`, `ipma`) are
/// read. A file without `meta` or `pitm` gives no graph, leaving it to libheif's own checks.
struct HEIFItemGraph {
    private let reader: HEIFBoxReader
    /// The primary item's ID.
    let primary: Int
    private let itemTypes: [Int: String]
    /// Each item's first reference of each type, as libheif looks them up.
    private let references: [ReferenceKey: [Int]]
    /// Items whose `auxl` reference and `auxC` property make them another item's alpha.
    private let alphaItems: [Int: [Int]]
    private let declaredSizes: [Int: PixelSize]
    private let iloc: HEIFBoxReader.Box?
    private let idat: HEIFBoxReader.Box?

    /// The item types libheif 1.15 holds as images.
    static let imageTypes: Set<String> = ["hvc1", "av01", "vvc1", "grid", "iden", "iovl"]
    private static let alphaTypes: Set<String> = [
        "urn:mpeg:avc:2015:auxid:1", "urn:mpeg:hevc:2015:auxid:1", "urn:mpeg:mpegB:cicp:systems:auxiliary:alpha",
    ]
    /// The deepest chain of derived images followed.
    static let maxDepth = 8
    /// The most item decodes one decode may lead to (a 256×256 grid with alpha tiles and room).
    static let maxDecodes = 150_000

    private struct ReferenceKey: Hashable {
        let type: String
        let from: Int
    }

    /// Reads the graph of the file in `bytes`; `nil` when it has no `meta` with a `pitm`.
    init?(_ bytes: UnsafeBufferPointer<UInt8>) {
        let reader = HEIFBoxReader(bytes: bytes)
        guard let meta = reader.boxes(in: 0..<bytes.count).first(where: { $0.type == "meta" }) else { return nil }
        let children = reader.children(of: meta, after: 4) // a full box
        func child(_ type: String) -> HEIFBoxReader.Box? { children.first { $0.type == type } }
        guard let pitm = child("pitm"), let primary = reader.primaryID(pitm) else { return nil }
        self.reader = reader
        self.primary = primary
        itemTypes = child("iinf").map(reader.itemTypes) ?? [:]
        var references: [ReferenceKey: [Int]] = [:]
        for reference in child("iref").map(reader.references) ?? [] {
            let key = ReferenceKey(type: reference.type, from: reference.from)
            if references[key] == nil { references[key] = reference.to }
        }
        self.references = references
        iloc = child("iloc")
        idat = child("idat")
        let properties = child("iprp").map(reader.itemProperties) ?? [:]
        declaredSizes = properties.compactMapValues { $0.size }
        var alphaItems: [Int: [Int]] = [:]
        for (key, targets) in references where key.type == "auxl" && targets.count == 1 {
            guard let auxType = properties[key.from]?.auxiliaryType, Self.alphaTypes.contains(auxType) else { continue }
            alphaItems[targets[0], default: []].append(key.from)
        }
        self.alphaItems = alphaItems
    }

    /// The canvas a `grid` or `iovl` item declares in its own data; `nil` for other items or
    /// when the data cannot be found.
    func canvas(of item: Int) -> PixelSize? {
        guard let type = itemTypes[item], type == "grid" || type == "iovl",
              let data = itemData(item) else { return nil }
        // grid: version, flags (bit 0: 32-bit sizes), rows - 1, columns - 1, width, height.
        // iovl: version, flags (bit 0: 32-bit fields), four 16-bit fill values, width, height.
        let sizesAt = data.lowerBound + (type == "grid" ? 4 : 10)
        guard let flags = reader.read(data.lowerBound + 1, 1, within: data) else { return nil }
        let fieldSize = flags & 1 != 0 ? 4 : 2
        guard let width = reader.read(sizesAt, fieldSize, within: data),
              let height = reader.read(sizesAt + fieldSize, fieldSize, within: data) else { return nil }
        return PixelSize(width: width, height: height)
    }

    /// The size an item's `ispe` property declares.
    func declaredSize(of item: Int) -> PixelSize? { declaredSizes[item] }

    /// The most pixels decoding `item` may decode in all (every tile, layer and alpha plane, as
    /// often as it is referenced): four times the item's own canvas plus 16 million, which any
    /// tiling of a real file stays within.
    func workAllowance(for item: Int) -> Int {
        let own = canvas(of: item) ?? declaredSize(of: item) ?? PixelSize(width: 0, height: 0)
        return own.area > Int.max / 8 ? Int.max / 2 : 4 * own.area + (1 << 24)
    }

    /// Throws ``WebImageError`` (bad data, or image too large for a canvas past `limits`) when
    /// decoding `item` would lead libheif to a missing image, a cycle, more than ``maxDepth``
    /// nested derived images, a canvas past the limits, or more pixels than
    /// ``workAllowance(for:)``.
    func checkDecoding(_ item: Int, limits: DecodeLimits, format: ImageFormat) throws {
        var walk = Walk(allowance: workAllowance(for: item))
        try visit(item, path: [], walk: &walk, limits: limits, format: format)
    }

    private struct Walk {
        let allowance: Int
        var pixels = 0
        var decodes = 0
    }

    private func visit(_ item: Int, path: [Int], walk: inout Walk, limits: DecodeLimits, format: ImageFormat) throws {
        guard let type = itemTypes[item], Self.imageTypes.contains(type) else {
            // libheif refuses a primary item that is not an image itself, and names it.
            guard let parent = path.last else { return }
            throw WebImageError.badData("HEIF image \(parent) is made from item \(item), which is not an image.")
        }
        guard !path.contains(item) else { throw WebImageError.badData("HEIF image \(item) is made from itself.") }
        guard path.count < Self.maxDepth else {
            throw WebImageError.badData("HEIF derived images are nested more than \(Self.maxDepth) deep.")
        }
        walk.decodes += 1
        guard walk.decodes <= Self.maxDecodes else {
            throw WebImageError.badData("A HEIF image is made from more than \(Self.maxDecodes) decodes.")
        }
        let path = path + [item]
        switch type {
        case "grid", "iovl", "iden":
            if let canvas = canvas(of: item) { try limits.check(canvas, format: format) }
            for input in references[ReferenceKey(type: "dimg", from: item)] ?? [] {
                try visit(input, path: path, walk: &walk, limits: limits, format: format)
            }
        default:
            if let size = declaredSize(of: item) {
                try limits.check(size, format: format)
                walk.pixels = walk.pixels.addingReportingOverflow(size.area).overflow ? .max : walk.pixels + size.area
            } else if path.count > 1 {
                throw WebImageError.badData("HEIF image \(path[path.count - 2]) is made from image \(item), which declares no size.")
            }
            guard walk.pixels <= walk.allowance else {
                throw WebImageError.badData("A HEIF image would decode more than \(walk.allowance) pixels from its parts.")
            }
        }
        for alpha in alphaItems[item] ?? [] {
            try visit(alpha, path: path, walk: &walk, limits: limits, format: format)
        }
    }

    /// Where item `item`'s data is in the file (its first extent, in place or in `idat`).
    private func itemData(_ item: Int) -> Range<Int>? {
        guard let iloc, let extent = reader.location(of: item, in: iloc) else { return nil }
        let base: Int
        switch extent.method {
        case 0: base = 0
        case 1:
            guard let idat else { return nil }
            base = idat.payload.lowerBound
        default: return nil
        }
        let (start, overflow) = base.addingReportingOverflow(extent.offset)
        let count = reader.bytes.count
        guard !overflow, start >= 0, start <= count else { return nil }
        return start..<(start + min(extent.length, count - start))
    }
}
