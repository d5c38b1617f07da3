import Foundation
import Testing
@testable import WebImage
@testable import WebImageCodecs
@testable import WebImageLoading

@Suite("WebP coder: animation")
struct WebPAnimationTests {
    let coder = WebPCoder()
    let colors = [TestBitmaps.red, TestBitmaps.green, TestBitmaps.blue]

    @Test(arguments: [0, 2])
    func roundTripKeepsFramesDurationsAndLoopCount(loopCount: Int) throws {
        let data = try WebPFixtures.animation(colors, durations: [0.1, 0.25, 0.5], loopCount: loopCount)
        let image = try coder.decode(data, options: .default)
        #expect(image.format == .webp)
        #expect(image.frames.count == 3)
        #expect(image.loopCount == loopCount)
        #expect(image.pixelSize == PixelSize(width: 40, height: 30))
        #expect(image.frames.map(\.duration) == [0.1, 0.25, 0.5])
        for (frame, color) in zip(image.frames, colors) {
            #expect(frame.bitmap.pixel(x: 20, y: 15) == color)
        }
    }

    @Test func identicalFramesAreKept() throws {
        let data = try WebPFixtures.animation([TestBitmaps.red, TestBitmaps.red, TestBitmaps.blue],
                                              durations: [0.2, 0.2, 0.2])
        let image = try coder.decode(data, options: .default)
        #expect(image.frames.count == 3)
        #expect(image.frames.map(\.duration) == [0.2, 0.2, 0.2])
        #expect(image.frames[1].bitmap.pixel(x: 5, y: 5) == TestBitmaps.red)
    }

    @Test func tooShortDurationsBecomeATenthOfASecond() throws {
        let data = try WebPFixtures.animation(colors, durations: [0, 0.005, 0.011])
        let image = try coder.decode(data, options: .default)
        #expect(image.frames.map(\.duration) == [0.1, 0.1, 0.011])
    }

    @Test func lossyAnimationWithAlpha() throws {
        let half = RGBA(r: 200, g: 40, b: 40, a: 128)
        let data = try WebPFixtures.animation([half, TestBitmaps.green], durations: [0.1, 0.1], lossless: false)
        let image = try coder.decode(data, options: .default)
        #expect(image.frames.count == 2)
        #expect(image.frames[0].bitmap.pixel(x: 10, y: 10).isClose(to: half, tolerance: 8))
        #expect(image.frames[1].bitmap.pixel(x: 10, y: 10).isClose(to: TestBitmaps.green, tolerance: 8))
    }

    @Test func firstFrameOnlyDecodesAStill() throws {
        let data = try WebPFixtures.animation(colors, durations: [0.1, 0.2, 0.3], loopCount: 2)
        let image = try coder.decode(data, options: DecodeOptions(firstFrameOnly: true))
        #expect(image.frames.count == 1)
        #expect(!image.isAnimated)
        #expect(image.loopCount == 0)
        #expect(image.bitmap.pixel(x: 0, y: 0) == TestBitmaps.red)
    }

    @Test func firstFrameOnlyEncodesAStill() throws {
        let frames = colors.map { ImageFrame(bitmap: Bitmap(width: 8, height: 8, fill: $0), duration: 0.1) }
        let data = try coder.encode(Image(frames: frames), as: .webp, options: EncodeOptions(firstFrameOnly: true))
        let image = try coder.decode(data, options: .default)
        #expect(image.frames.count == 1)
        #expect(image.bitmap.pixel(x: 4, y: 4).isClose(to: TestBitmaps.red, tolerance: 8))
    }

    @Test func thumbnailResizesEveryFrame() throws {
        let data = try WebPFixtures.animation(colors, durations: [0.1, 0.1, 0.1], width: 80, height: 40)
        let options = DecodeOptions(thumbnailPixelSize: PixelSize(width: 20, height: 20))
        let image = try coder.decode(data, options: options)
        #expect(image.frames.count == 3)
        #expect(image.frames.allSatisfy { $0.bitmap.size == PixelSize(width: 20, height: 10) })
        #expect(image.frames[2].bitmap.pixel(x: 10, y: 5) == TestBitmaps.blue)
        #expect(image.isThumbnail)
    }

    @Test func byteBudgetCountsAllFrames() throws {
        let data = try WebPFixtures.animation(colors, durations: [0.1, 0.1, 0.1], width: 80, height: 40)
        let limit = 80 * 40 * 4 // one full frame's worth for three frames
        let image = try coder.decode(data, options: DecodeOptions(scaleDownLimitBytes: limit))
        let expected = ImageSizing.scaledSize(PixelSize(width: 80, height: 40), limitBytes: limit, frameCount: 3)
        #expect(image.frames.count == 3)
        #expect(image.pixelSize == expected)
        #expect(image.memoryCost <= limit)
    }

    @Test func animationLimitsAreCheckedBeforeDecoding() throws {
        let data = try WebPFixtures.animation(colors, durations: [0.1, 0.1, 0.1])
        let tooManyFrames = DecodeOptions(limits: DecodeLimits(maxFrames: 2))
        #expect(throws: WebImageError.self) { try coder.decode(data, options: tooManyFrames) }
        // The byte limit bounds frames held at once: all of them now is refused, lazily is not.
        let tooManyBytes = DecodeOptions(limits: DecodeLimits(maxTotalBytes: 40 * 30 * 4 * 2), preloadsAllFrames: true)
        let error = #expect(throws: WebImageError.self) { try coder.decode(data, options: tooManyBytes) }
        #expect(error?.code == .imageTooLarge)
        var lazy = tooManyBytes
        lazy.preloadsAllFrames = false
        #expect(try coder.decode(data, options: lazy).frameCount == 3)
        // The first frame alone fits the same budget.
        var firstOnly = tooManyBytes
        firstOnly.firstFrameOnly = true
        #expect(try coder.decode(data, options: firstOnly).frames.count == 1)
    }

    @Test func truncatedAnimationIsBadData() throws {
        let data = try WebPFixtures.animation(colors, durations: [0.1, 0.1, 0.1], lossless: false)
        for length in [data.count - 10, data.count * 2 / 3, 40] {
            let error = #expect(throws: WebImageError.self) { try coder.decode(data.prefix(length), options: .default) }
            #expect(error?.code == .badImageData)
        }
    }
}
