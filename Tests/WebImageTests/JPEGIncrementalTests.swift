import Foundation
import Testing
@testable import WebImage
@testable import WebImageCodecs
@testable import WebImageLoading

@Suite("JPEG incremental decoding")
struct JPEGIncrementalTests {
    @Test func decodesIncrementallyAnyJPEG() throws {
        let data = try JPEGFixtures.encode(TestBitmaps.quadrants())
        #expect(JPEGCoder().canDecodeIncrementally(data.prefix(3)))
        #expect(!JPEGCoder().canDecodeIncrementally(Data("GIF89a".utf8)))
    }

    @Test func progressiveShowsScansBeforeTheEnd() throws {
        let original = TestBitmaps.quadrants(width: 160, height: 120)
        let data = try JPEGFixtures.progressive(original)
        let (steps, final) = try JPEGFixtures.feed(data, chunks: 20)
        #expect(steps.first.flatMap { $0 } == nil) // the first 5% hold only the header
        let partials = steps.compactMap { $0 }
        #expect(!partials.isEmpty)
        for image in partials {
            #expect(image.isPartial)
            #expect(image.pixelSize == original.size)
        }
        #expect(TestBitmaps.isUprightQuadrants(partials[0].bitmap, tolerance: 60))
        let complete = try #require(final)
        #expect(!complete.isPartial)
        #expect(complete.pixelSize == original.size)
        #expect(TestBitmaps.isUprightQuadrants(complete.bitmap))
    }

    @Test func progressiveRedecodesOnlyForNewScans() throws {
        let data = try JPEGFixtures.progressive(TestBitmaps.gradient(width: 64, height: 64))
        let decoder = JPEGIncrementalDecoder(options: .default)
        decoder.update(data.prefix(data.count / 2), finished: false)
        let first = try #require(try decoder.currentImage())
        decoder.update(data.prefix(data.count / 2 + 1), finished: false)
        let again = try decoder.currentImage()
        #expect(again === first)
    }

    @Test func baselineShowsRowsBeforeTheEnd() throws {
        let original = TestBitmaps.gradient(width: 160, height: 120)
        let data = try JPEGFixtures.encode(original)
        let (steps, final) = try JPEGFixtures.feed(data, chunks: 10)
        let partials = steps.compactMap { $0 }
        #expect(!partials.isEmpty)
        #expect(partials.allSatisfy { $0.isPartial && $0.pixelSize == original.size })
        // The top rows arrive first: the last partial shows them already.
        let last = try #require(partials.last)
        #expect(last.bitmap.pixel(x: 10, y: 10).isClose(to: original.pixel(x: 10, y: 10), tolerance: 24))
        let complete = try #require(final)
        #expect(!complete.isPartial)
        #expect(complete.bitmap.pixel(x: 150, y: 110).isClose(to: original.pixel(x: 150, y: 110), tolerance: 24))
    }

    @Test func nothingUntilTheHeaderHasArrived() throws {
        let data = try JPEGFixtures.encode(TestBitmaps.quadrants())
        let decoder = JPEGCoder().makeIncrementalDecoder(options: .default)
        decoder.update(data.prefix(20), finished: false)
        #expect(try decoder.currentImage() == nil)
    }

    @Test func finishedBadDataThrows() throws {
        let data = try JPEGFixtures.encode(TestBitmaps.gradient(width: 64, height: 64))
        let decoder = JPEGCoder().makeIncrementalDecoder(options: .default)
        decoder.update(data.prefix(data.count / 2), finished: true)
        #expect(JPEGFixtures.errorCode { try decoder.currentImage() } == .badImageData)
        let noise = JPEGCoder().makeIncrementalDecoder(options: .default)
        noise.update(TestBitmaps.noise(count: 100, seed: 3), finished: false)
        #expect(try noise.currentImage() == nil)
        noise.update(TestBitmaps.noise(count: 200, seed: 3), finished: true)
        #expect(JPEGFixtures.errorCode { try noise.currentImage() } == .badImageData)
    }

    @Test func oversizedImageIsRefusedWhenFinished() throws {
        let data = try JPEGFixtures.encode(TestBitmaps.quadrants())
        let bomb = JPEGFixtures.patchingFrameSize(data, width: 60000, height: 60000)
        let decoder = JPEGCoder().makeIncrementalDecoder(options: .default)
        decoder.update(bomb.prefix(bomb.count - 10), finished: false)
        #expect(try decoder.currentImage() == nil)
        decoder.update(bomb, finished: true)
        #expect(JPEGFixtures.errorCode { try decoder.currentImage() } == .imageTooLarge)
    }
}
