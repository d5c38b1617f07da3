import Foundation
import Testing
@testable import WebImage
@testable import WebImageCodecs
@testable import WebImageLoading

/// Progressive animated loading for APNG and animated WebP (SDAnimatedImageView's incremental
/// mode): while the bytes arrive, the frames that have fully arrived play, each equal to the
/// finished file's frame; the finished data gives the regular image.
@Suite("APNG and animated WebP: frames that have arrived play before the download ends")
struct AnimatedIncrementalTests {
    static let colours: [RGBA] = (0..<7).map { RGBA(r: UInt8(30 * $0), g: 200, b: UInt8(255 - 30 * $0), a: 255) }

    @Test func apngGrowsAFrameAtATime() throws {
        let frames = Self.colours.map {
            PNGFixtures.Frame(bitmap: PNGFixtures.solid(24, 16, $0), delay: (1, 10))
        }
        let apng = PNGFixtures.apng(canvas: PixelSize(width: 24, height: 16), frames: frames, plays: 3)
        let counts = try Self.playArrivedFrames(of: apng, coder: PNGCoder(), stride: 29)
        // The default image (frame 0) row by row, then the animation a frame at a time.
        #expect(counts == Array(1...7) || counts == Array(1...6), "\(counts)")
    }

    @Test func animatedWebPGrowsAFrameAtATime() throws {
        let webp = try WebPFixtures.animation(Self.colours, durations: Array(repeating: 0.1, count: 7), loopCount: 3)
        let counts = try Self.playArrivedFrames(of: webp, coder: WebPCoder(), stride: 5)
        // The first frame alone once it has arrived, then the animation a frame at a time.
        #expect(counts.first == 1)
        #expect(counts == Array(1...counts.count))
        #expect(counts.count >= 6)
    }

    /// A long download rebuilds its partial animation as the count grows by an eighth.
    @Test func aLongAnimationIsRebuiltAsItsFrameCountGrowsByAnEighth() throws {
        let colours = (0..<40).map { RGBA(r: UInt8($0 * 6), g: 10, b: 10, a: 255) }
        let webp = try WebPFixtures.animation(colours, durations: Array(repeating: 0.05, count: 40), width: 8, height: 8)
        let counts = try Self.playArrivedFrames(of: webp, coder: WebPCoder(), stride: 3)
        #expect(counts.prefix(16) == ArraySlice(1...16))
        #expect(counts.contains(18) && !counts.contains(17))
        #expect(counts.count < 30)
        #expect(ArrivedFramesPacing.shouldShow(arrived: 2, shown: nil))
        #expect(!ArrivedFramesPacing.shouldShow(arrived: 0, shown: nil))
        #expect(ArrivedFramesPacing.shouldShow(arrived: 72, shown: 64) && !ArrivedFramesPacing.shouldShow(arrived: 71, shown: 64))
    }

    @Test func aRestartedDownloadStartsOverAndAFirstFrameOnlyDecodeShowsNoAnimation() throws {
        let webp = try WebPFixtures.animation(Self.colours, durations: Array(repeating: 0.1, count: 7))
        let decoder = WebPCoder().makeIncrementalDecoder(options: .default)
        decoder.update(webp.prefix(webp.count - 8), finished: false)
        #expect(try decoder.currentImage()?.frameCount == 6)
        decoder.update(webp.prefix(webp.count / 3), finished: false)
        let restarted = try #require(try decoder.currentImage())
        #expect(restarted.frameCount < 6 && restarted.isPartial)

        let still = WebPCoder().makeIncrementalDecoder(options: DecodeOptions(firstFrameOnly: true))
        still.update(webp.prefix(webp.count - 8), finished: false)
        #expect(try still.currentImage()?.frameCount == 1)

        let apng = PNGFixtures.apng(canvas: PixelSize(width: 8, height: 8),
                                    frames: Self.colours.map { PNGFixtures.Frame(bitmap: PNGFixtures.solid(8, 8, $0), delay: (1, 10)) })
        let stillPNG = PNGCoder().makeIncrementalDecoder(options: DecodeOptions(firstFrameOnly: true))
        stillPNG.update(apng.prefix(apng.count - 20), finished: false)
        let stillImage = try stillPNG.currentImage()
        #expect(stillImage?.frameCount == 1, "\(String(describing: stillImage))")
    }

    @Test func truncatedOrDamagedBytesShowWhatArrivedAndNeverCrash() throws {
        let webp = try WebPFixtures.animation(Self.colours, durations: Array(repeating: 0.1, count: 7))
        // A frame chunk whose declared size runs past the data is not counted.
        var damaged = webp
        let anmf = try #require(damaged.range(of: Data("ANMF".utf8), in: 40..<damaged.count))
        damaged.replaceSubrange(anmf.upperBound..<anmf.upperBound + 4, with: [0xFF, 0xFF, 0xFF, 0x0F])
        let decoder = WebPCoder().makeIncrementalDecoder(options: .default)
        decoder.update(damaged, finished: false)
        #expect((try decoder.currentImage())?.frameCount ?? 0 <= 1)
        decoder.update(damaged, finished: true)
        #expect(throws: WebImageError.self) { try decoder.currentImage() }

        // Random cuts of an APNG never crash and never show a frame that is not the file's.
        let frames = Self.colours.map { PNGFixtures.Frame(bitmap: PNGFixtures.solid(8, 8, $0), delay: (1, 10)) }
        let apng = PNGFixtures.apng(canvas: PixelSize(width: 8, height: 8), frames: frames)
        for cut in [9, 33, 57, 100, apng.count - 13] {
            let png = PNGCoder().makeIncrementalDecoder(options: .default)
            png.update(apng.prefix(cut), finished: false)
            if let image = try png.currentImage(), image.frameCount > 1 {
                #expect(try image.frame(at: image.frameCount - 1).bitmap.pixel(x: 0, y: 0) == Self.colours[image.frameCount - 1])
            }
        }
    }

    /// Feeds `data` in growing prefixes; returns the distinct frame counts seen, in order, after
    /// checking every shown frame against the finished file's.
    static func playArrivedFrames(of data: Data, coder: any ProgressiveImageCoding, stride step: Int) throws -> [Int] {
        let whole = try coder.decode(data, options: DecodeOptions(preloadsAllFrames: true))
        let decoder = coder.makeIncrementalDecoder(options: .default)
        var counts: [Int] = []
        for cut in stride(from: 16, to: data.count, by: step) {
            decoder.update(data.prefix(cut), finished: false)
            guard let image = try decoder.currentImage() else { continue }
            #expect(image.isPartial)
            #expect(image.animatedImageData == nil)
            if counts.last != image.frameCount { counts.append(image.frameCount) }
            if image.frameCount > 1 {
                #expect(image.loopCount == whole.loopCount)
                for index in 0..<image.frameCount {
                    #expect(try image.frame(at: index).bitmap == whole.frame(at: index).bitmap)
                    #expect(image.frameDuration(at: index) == whole.frameDuration(at: index))
                }
            }
        }
        decoder.update(data, finished: true)
        let full = try #require(try decoder.currentImage())
        #expect(!full.isPartial && full.frameCount == whole.frameCount && full.animatedImageData == data)
        return counts
    }
}
