import Foundation
import Testing
@testable import WebImageCodecs

/// The grid's own canvas size, read from the file and checked against the limits, since libheif
/// sizes the canvas from it rather than from the `ispe` it reports.
@Suite("HEIF grid size")
struct HEIFGridSizeTests {
    func gridSize(_ data: Data) -> PixelSize? {
        data.withUnsafeBytes { raw in
            HEIFItemGraph(raw.bindMemory(to: UInt8.self)).flatMap { $0.canvas(of: $0.primary) }
        }
    }

    /// `data` with its `idat` grid record's output size set to `width`×`height` (16-bit fields).
    func withGridSize(_ data: Data, width: UInt16, height: UInt16) throws -> Data {
        var bytes = [UInt8](data)
        let idat = try #require(bytes.indices.dropLast(4).first { Array(bytes[$0..<$0 + 4]) == Array("idat".utf8) })
        let record = idat + 4
        try #require(bytes[record + 1] & 1 == 0, "a grid with 16-bit sizes")
        bytes[record + 4] = UInt8(width >> 8); bytes[record + 5] = UInt8(width & 0xFF)
        bytes[record + 6] = UInt8(height >> 8); bytes[record + 7] = UInt8(height & 0xFF)
        return Data(bytes)
    }

    @Test func fixturesDeclareTheirOwnSize() throws {
        #expect(gridSize(try CodecFixtures.data("heif/odd-grid.heic")) == PixelSize(width: 63, height: 47))
        #expect(gridSize(try CodecFixtures.data("heif/orientation-6.heic")) == PixelSize(width: 64, height: 48))
        #expect(gridSize(Data("not a heif file at all".utf8)) == nil)
        #expect(gridSize(try CodecFixtures.data("avif/still-8bit.avif")) == nil) // an av01 primary item
    }

    @Test func canvasOverTheLimitIsRefusedThoughIspeIsSmall() throws {
        let huge = try withGridSize(try CodecFixtures.data("heif/odd-grid.heic"), width: 20000, height: 20000)
        #expect(gridSize(huge) == PixelSize(width: 20000, height: 20000))
        #expect(HEIFCoder().imageInfo(for: huge)?.pixelSize == PixelSize(width: 63, height: 47)) // ispe
        let error = CodecFixtures.error { try HEIFCoder().decode(huge, options: .default) }
        #expect(error?.code == .imageTooLarge)
        #expect(error?.message.contains("20000x20000") == true, "\(String(describing: error))")
    }
}
