import Foundation
import Testing
@testable import WebImage
@testable import WebImageCodecs
@testable import WebImageLoading

@Suite("WebP coder: incremental decoding")
struct WebPIncrementalTests {
    let coder = WebPCoder()

    @Test func partialRowsThenTheFullImage() throws {
        let source = TestBitmaps.gradient(width: 256, height: 256)
        let data = try WebPFixtures.encode(source, quality: 0.9)
        let decoder = coder.makeIncrementalDecoder(options: .default)

        decoder.update(data.prefix(20), finished: false)
        #expect(try decoder.currentImage() == nil)

        decoder.update(data.prefix(data.count / 2), finished: false)
        let partial = try #require(try decoder.currentImage())
        #expect(partial.isPartial)
        #expect(partial.format == .webp)
        #expect(partial.pixelSize == source.size)
        #expect(partial.bitmap.pixel(x: 10, y: 0).a == 255)
        #expect(partial.bitmap.pixel(x: 10, y: 255) == .clear)

        decoder.update(data.prefix(data.count * 3 / 4), finished: false)
        let later = try #require(try decoder.currentImage())
        #expect(later.isPartial)

        decoder.update(data, finished: true)
        let full = try #require(try decoder.currentImage())
        #expect(!full.isPartial)
        #expect(full.bitmap == (try coder.decode(data, options: .default)).bitmap)
    }

    @Test func partialImagesHonourTheThumbnailSize() throws {
        let data = try WebPFixtures.encode(TestBitmaps.gradient(width: 256, height: 128), quality: 0.9)
        let options = DecodeOptions(thumbnailPixelSize: PixelSize(width: 64, height: 64))
        let decoder = coder.makeIncrementalDecoder(options: options)
        decoder.update(data.prefix(data.count * 2 / 3), finished: false)
        let partial = try #require(try decoder.currentImage())
        #expect(partial.isPartial)
        #expect(partial.pixelSize == PixelSize(width: 64, height: 32))
        decoder.update(data, finished: true)
        #expect(try decoder.currentImage()?.pixelSize == PixelSize(width: 64, height: 32))
    }

    @Test func animationShowsItsFirstFrameOnceItHasArrived() throws {
        let data = try WebPFixtures.animation([TestBitmaps.red, TestBitmaps.blue], durations: [0.1, 0.1])
        let decoder = coder.makeIncrementalDecoder(options: .default)
        decoder.update(data.prefix(30), finished: false)
        #expect(try decoder.currentImage() == nil)
        decoder.update(data.prefix(data.count - 8), finished: false)
        let first = try #require(try decoder.currentImage())
        #expect(first.isPartial && first.frameCount == 1 && first.bitmap.pixel(x: 0, y: 0) == TestBitmaps.red)
        decoder.update(data, finished: true)
        let image = try #require(try decoder.currentImage())
        #expect(image.frames.count == 2)
        #expect(!image.isPartial)
    }

    @Test func badFinishedDataThrows() throws {
        let data = try WebPFixtures.encode(TestBitmaps.gradient(width: 64, height: 64))
        let decoder = coder.makeIncrementalDecoder(options: .default)
        decoder.update(data.prefix(data.count / 2), finished: false)
        _ = try decoder.currentImage()
        decoder.update(data.prefix(data.count / 2), finished: true)
        let error = #expect(throws: WebImageError.self) { try decoder.currentImage() }
        #expect(error?.code == .badImageData)
    }

    @Test func oversizedImagesGetNoPartials() throws {
        let data = try WebPFixtures.encode(TestBitmaps.gradient(width: 128, height: 128))
        let decoder = coder.makeIncrementalDecoder(options: DecodeOptions(limits: DecodeLimits(maxPixels: 1_000)))
        decoder.update(data.prefix(data.count / 2), finished: false)
        #expect(try decoder.currentImage() == nil)
        decoder.update(data, finished: true)
        let error = #expect(throws: WebImageError.self) { try decoder.currentImage() }
        #expect(error?.code == .imageTooLarge)
    }

    @Test func routedThroughTheCodersManager() throws {
        let data = try WebPFixtures.encode(TestBitmaps.gradient(width: 128, height: 128))
        #expect(CodersManager.shared.canDecodeIncrementally(data))
        let decoder = CodersManager.shared.makeIncrementalDecoder(options: .default)
        decoder.update(data.prefix(data.count * 2 / 3), finished: false)
        #expect(try decoder.currentImage()?.isPartial == true)
        decoder.update(data, finished: true)
        #expect(try decoder.currentImage()?.isPartial == false)
    }
}
