import Foundation
import Testing
@testable import WebImage
@testable import WebImageCodecs
@testable import WebImageLoading

@Suite("GIF incremental decoding")
struct GIFIncrementalTests {
    typealias Frame = GIFFixtures.Frame

    @Test func partialFirstFrameThenFullAnimation() throws {
        // Noisy indices (1–3, never the white 0) so the first frame spans many data blocks.
        let rows = TestBitmaps.noise(count: 64 * 64, seed: 9).map { 1 + $0 % 3 }
        let frames = [Frame(width: 64, height: 64, indices: rows), .solid(3, width: 64, height: 64)]
        let gif = GIFFixtures.make(width: 64, height: 64, frames: frames, loopCount: 2)
        let decoder = GIFCoder().makeIncrementalDecoder(options: .default)

        decoder.update(gif.prefix(10), finished: false)
        #expect(try decoder.currentImage() == nil)

        var sawRowsOnly = false, sawCompleteFirst = false
        for cut in stride(from: 40, to: gif.count, by: 23) {
            decoder.update(gif.prefix(cut), finished: false)
            guard let image = try decoder.currentImage() else { continue }
            #expect(image.isPartial)
            #expect(image.frameCount <= 2)
            #expect(image.bitmap.pixel(x: 3, y: 0).a == 255)
            #expect(image.bitmap.pixel(x: 3, y: 0) != .white)
            if image.bitmap.pixel(x: 3, y: 63).a == 0 { sawRowsOnly = true }
            if image.bitmap.pixel(x: 3, y: 63).a == 255 { sawCompleteFirst = true }
        }
        #expect(sawRowsOnly)
        #expect(sawCompleteFirst)

        decoder.update(gif, finished: true)
        let full = try #require(try decoder.currentImage())
        #expect(!full.isPartial)
        #expect(full.frames.count == 2)
        #expect(full.loopCount == 2)
    }

    @Test func framesThatHaveArrivedPlayBeforeTheDownloadEnds() throws {
        let frames = (0..<6).map { Frame.solid(UInt8(1 + $0 % 3), width: 32, height: 32) }
        let gif = GIFFixtures.make(width: 32, height: 32, frames: frames, loopCount: 0)
        let whole = try GIFCoder().decode(gif, options: DecodeOptions(preloadsAllFrames: true))
        let decoder = GIFCoder().makeIncrementalDecoder(options: .default)
        var counts: [Int] = []
        for cut in stride(from: 20, to: gif.count, by: 7) {
            decoder.update(gif.prefix(cut), finished: false)
            guard let image = try decoder.currentImage() else { continue }
            #expect(image.isPartial)
            if counts.last != image.frameCount { counts.append(image.frameCount) }
            // Every frame that is there is the frame of the finished file.
            for index in 0..<image.frameCount {
                #expect(try image.frame(at: index).bitmap == whole.frame(at: index).bitmap)
            }
        }
        // One frame, then the animation growing a frame at a time as each one arrives.
        #expect(counts.first == 1)
        #expect(counts == Array(1...counts.count))
        #expect(counts.count >= 5)
        decoder.update(gif, finished: true)
        let full = try #require(try decoder.currentImage())
        #expect(!full.isPartial && full.frameCount == 6 && full.animatedImageData == gif)
    }

    @Test func badFinishedDataThrows() {
        let decoder = GIFCoder().makeIncrementalDecoder(options: .default)
        decoder.update(Data("GIF89a".utf8) + TestBitmaps.noise(count: 64, seed: 5), finished: false)
        #expect((try? decoder.currentImage()) == nil)
        decoder.update(Data("GIF89a".utf8) + TestBitmaps.noise(count: 64, seed: 5), finished: true)
        #expect(throws: WebImageError.self) { try decoder.currentImage() }
    }

    @Test func managerRoutesGIFToThisCoder() throws {
        let gif = GIFFixtures.make(width: 4, height: 4, frames: [.solid(2, width: 4, height: 4)])
        let manager = CodersManager(coders: [GIFCoder()])
        #expect(manager.canDecodeIncrementally(gif))
        let image = try manager.decode(gif, options: .default)
        #expect(image.format == .gif)
        #expect(image.bitmap.pixel(x: 0, y: 0) == TestBitmaps.green)
    }
}
