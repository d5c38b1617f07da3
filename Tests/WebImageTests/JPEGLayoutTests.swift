import Foundation
import Testing
@testable import WebImageCodecs

/// JPEG layouts at the edge of what libjpeg-turbo 2.1 takes: a sampling TurboJPEG's header call
/// refuses (read by libjpeg's own header reader instead), and codings it does not decode at all
/// (refused with an error that says so).
@Suite("JPEG layouts")
struct JPEGLayoutTests {
    let coder = JPEGCoder()

    static func close(_ a: RGBA, _ b: RGBA, within tolerance: Int = 10) -> Bool {
        abs(Int(a.r) - Int(b.r)) <= tolerance && abs(Int(a.g) - Int(b.g)) <= tolerance
            && abs(Int(a.b) - Int(b.b)) <= tolerance && a.a == b.a
    }

    @Test func cmykSampledTwoByTwoThenOneByOneDecodes() throws {
        let data = try CodecFixtures.data("jpeg/cmyk-420.jpg")
        #expect(coder.imageInfo(for: data)?.pixelSize == PixelSize(width: 32, height: 16))
        let image = try coder.decode(data, options: .default)
        #expect(image.pixelSize == PixelSize(width: 32, height: 16))
        // Cyan, magenta, yellow and 200/255 black by the naive formula (Pillow decodes the same).
        let want = [RGBA(r: 0, g: 255, b: 255), RGBA(r: 255, g: 0, b: 255), RGBA(r: 255, g: 255, b: 0), RGBA(r: 55, g: 55, b: 55)]
        for (i, (x, y)) in [(4, 4), (20, 4), (4, 12), (20, 12)].enumerated() {
            let got = image.bitmap.pixel(x: x, y: y)
            #expect(Self.close(got, want[i]), "quadrant \(i): \(got)")
        }
        let thumbnail = try coder.decode(data, options: DecodeOptions(thumbnailPixelSize: PixelSize(width: 8, height: 4)))
        #expect(thumbnail.pixelSize == PixelSize(width: 8, height: 4))
    }

    /// An 8-bit JPEG whose frame header is rewritten: `marker` (SOF0 = 0xC0) and `precision`.
    func rewritten(marker: UInt8, precision: UInt8) throws -> Data {
        var bytes = [UInt8](try coder.encode(Image(bitmap: TestBitmaps.quadrants(width: 16, height: 16)), as: .jpeg, options: .default))
        let sof = try #require((0..<bytes.count - 1).first { bytes[$0] == 0xFF && bytes[$0 + 1] == 0xC0 })
        bytes[sof + 1] = marker
        bytes[sof + 4] = precision
        return Data(bytes)
    }

    @Test func twelveBitJPEGIsRefusedAsUnsupported() throws {
        let error = try #require(throws: WebImageError.self) { try coder.decode(try rewritten(marker: 0xC1, precision: 12), options: .default) }
        #expect(error.code == .unsupportedFormat)
        #expect(error.message.contains("12-bit") && error.message.contains("libjpeg-turbo 2.1"), "\(error)")
    }

    @Test func losslessJPEGIsRefusedAsUnsupported() throws {
        let error = try #require(throws: WebImageError.self) { try coder.decode(try rewritten(marker: 0xC3, precision: 8), options: .default) }
        #expect(error.code == .unsupportedFormat)
        #expect(error.message.contains("lossless"), "\(error)")
    }
}
