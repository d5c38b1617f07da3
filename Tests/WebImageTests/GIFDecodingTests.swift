import CGIF
import Foundation
import Testing
@testable import WebImage
@testable import WebImageCodecs
@testable import WebImageLoading

@Suite("GIF decoding")
struct GIFDecodingTests {
    let coder = GIFCoder()
    typealias Frame = GIFFixtures.Frame

    @Test func sniffsGIFOnly() {
        let gif = GIFFixtures.make(width: 2, height: 2, frames: [.solid(1, width: 2, height: 2)])
        #expect(coder.canDecode(gif))
        #expect(coder.canDecodeIncrementally(gif))
        #expect(!coder.canDecode(Data("GIF is a format".utf8)))
        #expect(coder.canEncode(to: .gif))
        #expect(!coder.canEncode(to: .png))
    }

    @Test func stillGIFDecodesAsStillImage() throws {
        let gif = GIFFixtures.make(width: 3, height: 2, frames: [.solid(2, width: 3, height: 2)])
        let image = try coder.decode(gif, options: .default)
        #expect(image.format == .gif)
        #expect(image.frames.count == 1)
        #expect(!image.isAnimated)
        #expect(image.frames[0].duration == 0)
        #expect(image.pixelSize == PixelSize(width: 3, height: 2))
        #expect(image.bitmap.pixel(x: 2, y: 1) == TestBitmaps.green)
    }

    @Test func missingLoopExtensionPlaysOnce() throws {
        let frames = [Frame.solid(1, width: 2, height: 2), .solid(2, width: 2, height: 2)]
        let image = try coder.decode(GIFFixtures.make(width: 2, height: 2, frames: frames), options: .default)
        #expect(image.frames.count == 2)
        #expect(image.loopCount == 1)
    }

    @Test(arguments: [0, 3])
    func loopExtensionIsRead(loopCount: Int) throws {
        let frames = [Frame.solid(1, width: 2, height: 2), .solid(2, width: 2, height: 2)]
        let gif = GIFFixtures.make(width: 2, height: 2, frames: frames, loopCount: loopCount)
        #expect(try coder.decode(gif, options: .default).loopCount == loopCount)
    }

    @Test func tinyDelaysBecomeOneTenthOfASecond() throws {
        var frames: [Frame] = []
        for (i, delay) in [Int32(0), 1, 2, 50].enumerated() {
            var frame = Frame.solid(UInt8(i), width: 2, height: 2)
            frame.delay = delay
            frames.append(frame)
        }
        var noControl = Frame.solid(1, width: 2, height: 2)
        noControl.hasControl = false
        frames.append(noControl)
        let image = try coder.decode(GIFFixtures.make(width: 2, height: 2, frames: frames), options: .default)
        // The zero-delay first sub-image is drawn with the next one, a frame of 0.01 s.
        #expect(image.frames.map(\.duration) == [0.1, 0.02, 0.5, 0.1])
    }

    /// Frame 1 fills a 4×4 canvas red; frame 2 puts green at (1,1)–(2,2) with `disposal`;
    /// frame 3 puts blue at (2,2)–(3,3) with its top-left pixel transparent.
    private func disposalSequence(_ disposal: Int32) throws -> Image {
        var second = Frame.solid(2, x: 1, y: 1, width: 2, height: 2)
        second.disposal = disposal
        var third = Frame.solid(3, x: 2, y: 2, width: 2, height: 2)
        third.indices[0] = 0
        third.transparentIndex = 0
        let gif = GIFFixtures.make(width: 4, height: 4, frames: [.solid(1, width: 4, height: 4), second, third])
        let image = try coder.decode(gif, options: .default)
        try #require(image.frames.count == 3)
        let middle = image.frames[1].bitmap
        #expect(middle.pixel(x: 0, y: 0) == TestBitmaps.red)
        #expect(middle.pixel(x: 1, y: 1) == TestBitmaps.green)
        #expect(middle.pixel(x: 2, y: 2) == TestBitmaps.green)
        #expect(middle.pixel(x: 3, y: 3) == TestBitmaps.red)
        return image
    }

    @Test func disposalKeepLeavesThePreviousFrame() throws {
        let last = try disposalSequence(Int32(DISPOSE_DO_NOT)).frames[2].bitmap
        #expect(last.pixel(x: 1, y: 1) == TestBitmaps.green)
        #expect(last.pixel(x: 2, y: 2) == TestBitmaps.green) // seen through the transparent pixel
        #expect(last.pixel(x: 3, y: 3) == TestBitmaps.blue)
        #expect(last.pixel(x: 0, y: 0) == TestBitmaps.red)
    }

    @Test func disposalBackgroundClearsTheFrameRectangle() throws {
        let last = try disposalSequence(Int32(DISPOSE_BACKGROUND)).frames[2].bitmap
        #expect(last.pixel(x: 1, y: 1) == .clear)
        #expect(last.pixel(x: 2, y: 2) == .clear)
        #expect(last.pixel(x: 3, y: 3) == TestBitmaps.blue)
        #expect(last.pixel(x: 0, y: 0) == TestBitmaps.red)
        #expect(last.pixel(x: 3, y: 0) == TestBitmaps.red)
    }

    @Test func disposalPreviousRestoresTheCanvas() throws {
        let last = try disposalSequence(Int32(DISPOSE_PREVIOUS)).frames[2].bitmap
        #expect(last.pixel(x: 1, y: 1) == TestBitmaps.red)
        #expect(last.pixel(x: 2, y: 2) == TestBitmaps.red)
        #expect(last.pixel(x: 3, y: 3) == TestBitmaps.blue)
    }

    @Test func interlacedRowsLandInPlace() throws {
        let width = 3, height = 13
        var indices: [UInt8] = []
        for y in 0..<height { indices += Array(repeating: UInt8(y % 4), count: width) }
        let frame = Frame(width: width, height: height, indices: indices, interlaced: true)
        let image = try coder.decode(GIFFixtures.make(width: width, height: height, frames: [frame]), options: .default)
        for y in 0..<height {
            #expect(image.bitmap.pixel(x: 1, y: y) == GIFFixtures.palette[y % 4], "row \(y)")
        }
    }

    @Test func firstFrameOnlyGivesAStillImage() throws {
        let frames = [Frame.solid(3, width: 2, height: 2), .solid(2, width: 2, height: 2)]
        let gif = GIFFixtures.make(width: 2, height: 2, frames: frames, loopCount: 0)
        let image = try coder.decode(gif, options: DecodeOptions(firstFrameOnly: true))
        #expect(image.frames.count == 1)
        #expect(!image.isAnimated)
        #expect(image.bitmap.pixel(x: 0, y: 0) == TestBitmaps.blue)
    }

    @Test func thumbnailResizesEveryFrame() throws {
        let frames = (1...3).map { Frame.solid(UInt8($0), width: 40, height: 20) }
        let gif = GIFFixtures.make(width: 40, height: 20, frames: frames, loopCount: 0)
        let image = try coder.decode(gif, options: DecodeOptions(thumbnailPixelSize: PixelSize(width: 10, height: 10)))
        #expect(image.frames.count == 3)
        #expect(image.frames.allSatisfy { $0.bitmap.size == PixelSize(width: 10, height: 5) })
        #expect(image.frames[2].bitmap.pixel(x: 5, y: 2) == TestBitmaps.blue)
        #expect(image.isThumbnail)
    }

    @Test func byteBudgetAccountsForAllFrames() throws {
        let frames = (1...4).map { Frame.solid(UInt8($0 % 4), width: 100, height: 100) }
        let gif = GIFFixtures.make(width: 100, height: 100, frames: frames, loopCount: 0)
        let image = try coder.decode(gif, options: DecodeOptions(scaleDownLimitBytes: 4 * 4 * 50 * 50))
        #expect(image.frames.count == 4)
        #expect(image.frames.allSatisfy { $0.bitmap.size == PixelSize(width: 50, height: 50) })
    }

    @Test func framesLargerThanTheScreenAreClipped() throws {
        let frame = Frame.solid(2, x: 2, y: 2, width: 300, height: 200)
        let image = try coder.decode(GIFFixtures.make(width: 4, height: 4, frames: [frame]), options: .default)
        #expect(image.pixelSize == PixelSize(width: 4, height: 4))
        #expect(image.bitmap.pixel(x: 3, y: 3) == TestBitmaps.green)
        #expect(image.bitmap.pixel(x: 1, y: 1) == .clear)
    }

    @Test func framesOffTheScreenDrawNothing() throws {
        var offScreen = Frame.solid(3, x: 50, y: 0, width: 8, height: 8)
        offScreen.interlaced = true
        let frames = [Frame.solid(1, width: 4, height: 4), offScreen, .solid(2, x: 0, y: 3, width: 4, height: 20)]
        let image = try coder.decode(GIFFixtures.make(width: 4, height: 4, frames: frames), options: .default)
        #expect(image.frames.count == 3)
        #expect(image.frames[1].bitmap == image.frames[0].bitmap)
        #expect(image.frames[2].bitmap.pixel(x: 0, y: 2) == TestBitmaps.red)
        #expect(image.frames[2].bitmap.pixel(x: 0, y: 3) == TestBitmaps.green)
    }

    @Test func scaleFactorAndOptionsAreRecorded() throws {
        let gif = GIFFixtures.make(width: 2, height: 2, frames: [.solid(1, width: 2, height: 2)])
        let options = DecodeOptions(scaleFactor: 2)
        let image = try coder.decode(gif, options: options)
        #expect(image.scale == 2)
        #expect(image.decodeOptions == options)
    }
}
