import Foundation
import Testing
@testable import WebImageCodecs

/// BMP pixels (decoded by gdk-pixbuf's BMP loader) against Pillow's decode of the same files
/// (Tests/Fixtures/bmp, written by Pillow).
@Suite("BMP decoding matches Pillow")
struct BMPDecodingTests {
    let coder = BMPCoder()

    @Test(arguments: ["rgb24", "rgba32", "palette8", "gray8", "mono1"])
    func pixelsMatchPillow(_ name: String) throws {
        let path = "bmp/\(name).bmp"
        let image = try coder.decode(try CodecFixtures.data(path), options: .default)
        let reference = try CodecFixtures.reference(path)
        #expect(image.format == .bmp)
        #expect(image.pixelSize == reference.size)
        #expect(CodecFixtures.maxDifference(image.bitmap, reference) == 0)
    }

    /// rgb24.bmp with its rows stored top to bottom (a negative height), as some writers store them.
    static func topDown() throws -> Data {
        var bytes = [UInt8](try CodecFixtures.data("bmp/rgb24.bmp"))
        let start = Int(DIBHeaderBytes.u32(bytes, 10)), height = Int(DIBHeaderBytes.u32(bytes, 22))
        let stride = (bytes.count - start) / height
        let rows = (0..<height).map { Array(bytes[(start + $0 * stride)..<(start + ($0 + 1) * stride)]) }
        bytes.replaceSubrange(start..<bytes.count, with: rows.reversed().joined())
        DIBHeaderBytes.put(UInt32(bitPattern: Int32(-height)), into: &bytes, at: 22)
        return Data(bytes)
    }

    @Test func topDownRowsDecodeUpright() throws {
        let image = try coder.decode(try Self.topDown(), options: .default)
        #expect(CodecFixtures.maxDifference(image.bitmap, try CodecFixtures.reference("bmp/rgb24.bmp")) == 0)
    }

    @Test func headerAndThumbnail() throws {
        let data = try CodecFixtures.data("bmp/rgb24.bmp")
        #expect(coder.imageInfo(for: data) == ImageInfo(format: .bmp, pixelSize: PixelSize(width: 48, height: 32)))
        let thumbnail = try coder.decode(data, options: DecodeOptions(thumbnailPixelSize: PixelSize(width: 24, height: 24)))
        #expect(thumbnail.pixelSize == PixelSize(width: 24, height: 16))
        let reference = Resampler.resize(try CodecFixtures.reference("bmp/rgb24.bmp"), to: PixelSize(width: 24, height: 16))
        #expect(CodecFixtures.maxDifference(thumbnail.bitmap, reference) == 0)
    }

    @Test func managerRoutesBMPToThisCoder() throws {
        let data = try CodecFixtures.data("bmp/palette8.bmp")
        #expect(ImageFormat.detect(data) == .bmp)
        #expect(CodersManager.shared.decoder(for: data) is BMPCoder)
        #expect(try CodersManager.shared.decode(data, options: .default).format == .bmp)
        #expect(CodersManager.shared.canEncode(to: .bmp))
    }
}

/// Little-endian fields of BMP and ICO headers, for the tests that patch fixtures.
enum DIBHeaderBytes {
    static func u32(_ b: [UInt8], _ at: Int) -> UInt32 {
        UInt32(b[at]) | UInt32(b[at + 1]) << 8 | UInt32(b[at + 2]) << 16 | UInt32(b[at + 3]) << 24
    }

    static func put(_ value: UInt32, into b: inout [UInt8], at: Int) {
        for i in 0..<4 { b[at + i] = UInt8((value >> (8 * UInt32(i))) & 0xFF) }
    }
}
