import Foundation
import Testing
@testable import WebImageCodecs

/// The HEIF item graph is checked before libheif 1.15 follows it: a derived image made from
/// itself (libheif recursed without end and aborted), from an item that is not an image (libheif
/// asserted and aborted), or from one large tile referenced many times (hours of decoding) is
/// refused with a clear error, and real layouts still pass.
@Suite("HEIF item graph")
struct HEIFItemGraphTests {
    typealias Item = HEIFItemFile.Item

    func check(_ file: HEIFItemFile, item: Int? = nil) -> WebImageError? {
        Self.check(file.bytes, item: item)
    }

    /// The error the graph of `data` gives for decoding `item` (the primary by default); an
    /// issue is recorded when `data` has no graph.
    static func check(_ data: Data, item: Int? = nil) -> WebImageError? {
        data.withUnsafeBytes { raw in
            guard let graph = HEIFItemGraph(raw.bindMemory(to: UInt8.self)) else {
                Issue.record("no item graph")
                return nil
            }
            do {
                try graph.checkDecoding(item ?? graph.primary, limits: .default, format: .heif)
                return nil
            } catch {
                return error as? WebImageError
            }
        }
    }

    func decodeError(_ file: HEIFItemFile) -> WebImageError? {
        CodecFixtures.error { try HEIFCoder().decode(file.bytes, options: .default) }
    }

    /// libheif 1.15 decodes a grid's tile through the same call that decodes the grid: a grid
    /// whose tile is itself never ended: each level started a tile-decoding thread until none could
    /// start, and the process aborted.
    @Test func aGridMadeFromItselfIsRefusedBeforeLibheifDecodesIt() {
        let file = HEIFItemFile(primary: 1, items: [
            Item(id: 1, type: "grid", size: (64, 64), data: HEIFItemFile.gridData(rows: 1, columns: 1, width: 64, height: 64)),
        ], references: [("dimg", 1, [1])])
        #expect(check(file)?.message.contains("made from itself") == true)
        let error = decodeError(file)
        #expect(error?.code == .badImageData)
        #expect(error?.message.contains("made from itself") == true, "\(String(describing: error))")
    }

    /// libheif 1.15 checks that a grid's tiles are images, but not an overlay's layers; it
    /// asserted on the missing image and aborted the process.
    @Test func anOverlayOfAnItemThatIsNotAnImageIsRefused() {
        let file = HEIFItemFile(primary: 1, items: [
            Item(id: 1, type: "iovl", size: (64, 64), data: HEIFItemFile.overlayData(width: 64, height: 64, layers: 1)),
            Item(id: 2, type: "Exif", data: [0, 0, 0, 0]),
        ], references: [("dimg", 1, [2])])
        #expect(check(file)?.message.contains("item 2, which is not an image") == true)
        let error = decodeError(file)
        #expect(error?.code == .badImageData)
        #expect(error?.message.contains("not an image") == true, "\(String(describing: error))")
    }

    /// An overlay's canvas, like a grid's, is allocated as its own data declares.
    @Test func anOverlayCanvasPastTheLimitsIsRefusedThoughIspeIsSmall() {
        let file = HEIFItemFile(primary: 1, items: [
            Item(id: 1, type: "iovl", size: (64, 64), data: HEIFItemFile.overlayData(width: 30000, height: 30000, layers: 1)),
            Item(id: 2, type: "hvc1", size: (64, 64)),
        ], references: [("dimg", 1, [2])])
        let error = decodeError(file)
        #expect(error?.code == .imageTooLarge)
        #expect(error?.message.contains("30000x30000") == true, "\(String(describing: error))")
    }

    /// 256 references to one 4096×4096 tile on a 512×512 canvas: libheif would decode the tile
    /// 256 times (4.3 billion pixels). A real tiling of a 12-megapixel photo passes.
    @Test func aGridDecodingFarMorePixelsThanItShowsIsRefused() throws {
        let amplified = HEIFItemFile(primary: 1, items: [
            Item(id: 1, type: "grid", size: (512, 512), data: HEIFItemFile.gridData(rows: 16, columns: 16, width: 512, height: 512)),
            Item(id: 2, type: "hvc1", size: (4096, 4096)),
        ], references: [("dimg", 1, [Int](repeating: 2, count: 256))])
        let error = try #require(check(amplified))
        #expect(error.code == .badImageData)
        #expect(error.message.contains("pixels from its parts"), "\(error)")
        #expect(decodeError(amplified)?.message.contains("pixels from its parts") == true)

        let tiles = (2..<50).map { Item(id: $0, type: "hvc1", size: (512, 512)) }
        let photo = HEIFItemFile(primary: 1, items: [
            Item(id: 1, type: "grid", size: (4032, 3024), data: HEIFItemFile.gridData(rows: 6, columns: 8, width: 4032, height: 3024)),
        ] + tiles, references: [("dimg", 1, Array(2..<50))])
        #expect(check(photo) == nil)
    }

    /// Two images that are each other's alpha: libheif decodes an image's alpha through the same
    /// call, so it would never end.
    @Test func imagesThatAreEachOthersAlphaAreRefused() {
        let alpha = "urn:mpeg:mpegB:cicp:systems:auxiliary:alpha"
        let file = HEIFItemFile(primary: 1, items: [
            Item(id: 1, type: "hvc1", size: (64, 64), auxiliaryType: alpha),
            Item(id: 2, type: "hvc1", size: (64, 64), auxiliaryType: alpha),
        ], references: [("auxl", 1, [2]), ("auxl", 2, [1])])
        #expect(check(file)?.message.contains("made from itself") == true)
        // One alpha image of the primary is fine, and its pixels count as work.
        let plain = HEIFItemFile(primary: 1, items: [
            Item(id: 1, type: "hvc1", size: (64, 64)),
            Item(id: 2, type: "hvc1", size: (64, 64), auxiliaryType: alpha),
        ], references: [("auxl", 2, [1])])
        #expect(check(plain) == nil)
    }

    @Test func derivedImagesNestedPastTheDepthAreRefused() {
        let depth = HEIFItemGraph.maxDepth
        let chain = (1...depth).map { Item(id: $0, type: "iden", size: (64, 64)) } + [Item(id: depth + 1, type: "hvc1", size: (64, 64))]
        let references = (1...depth).map { (type: "dimg", from: $0, to: [$0 + 1]) }
        let file = HEIFItemFile(primary: 1, items: chain, references: references)
        #expect(check(file)?.message.contains("nested more than \(depth) deep") == true)
        let shorter = HEIFItemFile(primary: 2, items: chain, references: references)
        #expect(check(shorter) == nil)
    }

    /// A tile without `ispe` would let its work go uncounted.
    @Test func aTileThatDeclaresNoSizeIsRefused() {
        let file = HEIFItemFile(primary: 1, items: [
            Item(id: 1, type: "grid", size: (64, 64), data: HEIFItemFile.gridData(rows: 1, columns: 1, width: 64, height: 64)),
            Item(id: 2, type: "hvc1"),
        ], references: [("dimg", 1, [2])])
        #expect(check(file)?.message.contains("declares no size") == true)
    }

    /// A thumbnail is checked the same way before it is chosen over the primary image.
    @Test func aThumbnailItemIsCheckedLikeThePrimary() {
        let file = HEIFItemFile(primary: 1, items: [
            Item(id: 1, type: "hvc1", size: (640, 480)),
            Item(id: 2, type: "iden", size: (160, 120)),
            Item(id: 3, type: "mime"),
        ], references: [("thmb", 2, [1]), ("dimg", 2, [3])])
        #expect(check(file) == nil)
        #expect(check(file, item: 2)?.message.contains("item 3, which is not an image") == true)
    }

    @Test func theFixturesPass() throws {
        for name in ["heif/odd-grid.heic", "heif/orientation-6.heic"] {
            let error = Self.check(try CodecFixtures.data(name))
            #expect(error == nil, "\(name): \(String(describing: error))")
        }
    }
}
