import Foundation
import Testing
@testable import WebImageCodecs

/// AVIF pixels against libavif's reference decoder (`avifdec -d 8`), for each bit depth,
/// chroma layout, alpha, a grid and the first frame of a sequence.
@Suite("AVIF decoding matches avifdec")
struct AVIFDecodingTests {
    let coder = AVIFCoder()

    @Test(arguments: ["still-8bit", "still-10bit", "still-12bit", "alpha", "grid-2x2", "sequence"])
    func pixelsMatchTheReferenceDecoder(_ name: String) throws {
        let path = "avif/\(name).avif"
        // The sequence's first frame: the reference is avifdec's (first frame) decode.
        let image = try coder.decode(try CodecFixtures.data(path), options: DecodeOptions(firstFrameOnly: true))
        let reference = try CodecFixtures.reference(path)
        #expect(image.format == .avif)
        #expect(image.frames.count == 1)
        #expect(image.pixelSize == reference.size)
        // The same libavif conversion runs in both, with rounding for the deeper files.
        #expect(CodecFixtures.maxDifference(image.bitmap, reference) == 0)
    }

    @Test func alphaIsStraightAndKept() throws {
        let image = try coder.decode(try CodecFixtures.data("avif/alpha.avif"), options: .default)
        #expect(image.hasAlpha)
        // The picture's alpha ramps from opaque (left quarter) towards clear at the right edge.
        #expect(image.bitmap.pixel(x: 2, y: 10).a == 255)
        #expect(image.bitmap.pixel(x: 63, y: 10).a < 16)
    }

    @Test func opaqueImagesGetOpaqueAlpha() throws {
        for name in ["still-8bit", "still-10bit", "still-12bit"] {
            let image = try coder.decode(try CodecFixtures.data("avif/\(name).avif"), options: .default)
            #expect(!image.hasAlpha, "\(name)")
        }
    }

    @Test func deeperFilesReduceToTheSamePicture() throws {
        // The 10- and 12-bit files encode the same 8-bit picture as the 8-bit one: reduced to
        // 8 bits they look alike (a wrong shift or byte would be far off).
        let eight = try coder.decode(try CodecFixtures.data("avif/still-8bit.avif"), options: .default).bitmap
        for name in ["still-10bit", "still-12bit"] {
            let deep = try coder.decode(try CodecFixtures.data("avif/\(name).avif"), options: .default).bitmap
            #expect(CodecFixtures.meanDifference(deep, eight) < 3, "\(name)")
        }
    }

    @Test func firstFrameOfASequenceAndItsCount() throws {
        let data = try CodecFixtures.data("avif/sequence.avif")
        #expect(ImageFormat.detect(data) == .avif)
        let info = try #require(coder.imageInfo(for: data))
        #expect(info.frameCount == 3)
        #expect(info.pixelSize == PixelSize(width: 64, height: 48))
        let still = try coder.decode(data, options: DecodeOptions(firstFrameOnly: true))
        #expect(still.frames.count == 1 && !still.isAnimated)
        let animated = try coder.decode(data, options: .default)
        #expect(animated.frameCount == 3 && animated.isAnimated)
        #expect(animated.bitmap == still.bitmap)
    }

    @Test func managerRoutesAVIFToThisCoder() throws {
        let data = try CodecFixtures.data("avif/still-8bit.avif")
        #expect(CodersManager.shared.decoder(for: data) is AVIFCoder)
        #expect(try CodersManager.shared.decode(data, options: .default).format == .avif)
        #expect(CodersManager.shared.imageInfo(for: data) == ImageInfo(format: .avif, pixelSize: PixelSize(width: 64, height: 48), frameCount: 1))
    }
}
