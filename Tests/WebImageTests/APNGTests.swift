import Foundation
import Testing
@testable import WebImage
@testable import WebImageCodecs
@testable import WebImageLoading

@Suite("APNG decoding and encoding")
struct APNGTests {
    typealias Frame = PNGFixtures.Frame
    let coder = PNGCoder()
    let red = TestBitmaps.red, green = TestBitmaps.green, blue = TestBitmaps.blue
    let canvas = PixelSize(width: 4, height: 4)

    func decode(_ data: Data, _ options: DecodeOptions = .default) throws -> Image {
        try coder.decode(data, options: options)
    }

    func solid(_ w: Int, _ h: Int, _ c: RGBA) -> Bitmap { PNGFixtures.solid(w, h, c) }

    @Test func framesDurationsAndLoopCount() throws {
        let frames = [
            Frame(bitmap: solid(4, 4, red), delay: (50, 1000)),
            Frame(bitmap: solid(4, 4, green), delay: (0, 0)),
            Frame(bitmap: solid(4, 4, blue), delay: (3, 0)),
            Frame(bitmap: solid(4, 4, red), delay: (1, 100)),
            Frame(bitmap: solid(4, 4, green), delay: (2, 1)),
        ]
        let data = PNGFixtures.apng(canvas: canvas, frames: frames, plays: 3)
        #expect(ImageFormat.detect(data) == .apng)
        let image = try decode(data)
        #expect(image.format == .apng)
        #expect(image.frames.count == 5)
        #expect(image.loopCount == 3)
        let durations = image.frames.map(\.duration)
        let expected = [0.05, 0.1, 0.03, 0.1, 2.0]
        for (got, want) in zip(durations, expected) { #expect(abs(got - want) < 1e-9) }
        #expect(image.frames[1].bitmap.pixel(x: 2, y: 2) == green)
        #expect(image.frames[2].bitmap.pixel(x: 0, y: 3) == blue)

        let forever = try decode(PNGFixtures.apng(canvas: canvas, frames: frames, plays: 0))
        #expect(forever.loopCount == 0)
    }

    @Test func firstFrameOnly() throws {
        let data = PNGFixtures.apng(canvas: canvas, frames: [Frame(bitmap: solid(4, 4, red)),
                                                             Frame(bitmap: solid(4, 4, green))])
        let image = try decode(data, DecodeOptions(firstFrameOnly: true))
        #expect(image.frames.count == 1)
        #expect(image.format == .png)
        #expect(image.bitmap.pixel(x: 0, y: 0) == red)
        #expect(image.frames[0].duration == 0)
    }

    @Test func hiddenDefaultImageIsNotAFrame() throws {
        let data = PNGFixtures.apng(canvas: canvas, frames: [Frame(bitmap: solid(4, 4, green)),
                                                             Frame(bitmap: solid(4, 4, blue))],
                                    defaultImage: solid(4, 4, red))
        let image = try decode(data)
        #expect(image.frames.map { $0.bitmap.pixel(x: 1, y: 1) } == [green, blue])
    }

    @Test func disposeNoneKeepsTheFrame() throws {
        let frames = [Frame(bitmap: solid(4, 4, red)),
                      Frame(bitmap: solid(2, 2, green), x: 1, y: 1, dispose: 0),
                      Frame(bitmap: solid(1, 1, blue), x: 3, y: 3)]
        let image = try decode(PNGFixtures.apng(canvas: canvas, frames: frames))
        let last = image.frames[2].bitmap
        #expect(last.pixel(x: 0, y: 0) == red)
        #expect(last.pixel(x: 1, y: 1) == green)
        #expect(last.pixel(x: 3, y: 3) == blue)
    }

    @Test func disposeBackgroundClearsTheRectangle() throws {
        let frames = [Frame(bitmap: solid(4, 4, red)),
                      Frame(bitmap: solid(2, 2, green), x: 1, y: 1, dispose: 1),
                      Frame(bitmap: solid(1, 1, blue), x: 3, y: 3)]
        let image = try decode(PNGFixtures.apng(canvas: canvas, frames: frames))
        #expect(image.frames[1].bitmap.pixel(x: 1, y: 1) == green)
        let last = image.frames[2].bitmap
        #expect(last.pixel(x: 0, y: 0) == red)
        #expect(last.pixel(x: 1, y: 1) == .clear)
        #expect(last.pixel(x: 2, y: 2) == .clear)
        #expect(last.pixel(x: 3, y: 3) == blue)
    }

    @Test func disposePreviousRestoresTheRectangle() throws {
        let frames = [Frame(bitmap: solid(4, 4, red)),
                      Frame(bitmap: solid(2, 2, green), x: 1, y: 1, dispose: 2),
                      Frame(bitmap: solid(1, 1, blue), x: 3, y: 3)]
        let image = try decode(PNGFixtures.apng(canvas: canvas, frames: frames))
        #expect(image.frames[1].bitmap.pixel(x: 2, y: 2) == green)
        let last = image.frames[2].bitmap
        #expect(last.pixel(x: 1, y: 1) == red)
        #expect(last.pixel(x: 2, y: 2) == red)
        #expect(last.pixel(x: 3, y: 3) == blue)
    }

    @Test func firstFrameDisposePreviousActsAsBackground() throws {
        let frames = [Frame(bitmap: solid(4, 4, red), dispose: 2),
                      Frame(bitmap: solid(1, 1, blue), x: 0, y: 0)]
        let image = try decode(PNGFixtures.apng(canvas: canvas, frames: frames))
        #expect(image.frames[0].bitmap.pixel(x: 2, y: 2) == red)
        #expect(image.frames[1].bitmap.pixel(x: 0, y: 0) == blue)
        #expect(image.frames[1].bitmap.pixel(x: 2, y: 2) == .clear)
    }

    @Test func blendSourceReplacesAndOverComposites() throws {
        let halfRed = RGBA(r: 255, g: 0, b: 0, a: 128)
        let frames = [Frame(bitmap: solid(4, 4, blue)),
                      Frame(bitmap: solid(2, 2, halfRed), x: 0, y: 0, blend: 0),
                      Frame(bitmap: solid(2, 2, halfRed), x: 2, y: 2, blend: 1),
                      Frame(bitmap: solid(1, 1, .clear), x: 3, y: 0, blend: 1)]
        let image = try decode(PNGFixtures.apng(canvas: canvas, frames: frames))
        let source = image.frames[1].bitmap
        #expect(source.pixel(x: 0, y: 0) == halfRed)
        #expect(source.pixel(x: 3, y: 3) == blue)
        let over = image.frames[2].bitmap
        #expect(over.pixel(x: 3, y: 3).isClose(to: RGBA(r: 128, g: 0, b: 127, a: 255), tolerance: 1))
        #expect(over.pixel(x: 0, y: 0) == halfRed)
        #expect(image.frames[3].bitmap.pixel(x: 3, y: 0) == blue)
    }

    @Test func overOntoTranslucent() throws {
        let frames = [Frame(bitmap: solid(4, 4, RGBA(r: 0, g: 0, b: 255, a: 128))),
                      Frame(bitmap: solid(4, 4, RGBA(r: 255, g: 0, b: 0, a: 128)), blend: 1)]
        let pixel = try decode(PNGFixtures.apng(canvas: canvas, frames: frames)).frames[1].bitmap.pixel(x: 0, y: 0)
        // alpha = 0.502 + 0.502 * 0.498 = 0.752; red share = 0.502 / 0.752.
        #expect(pixel.isClose(to: RGBA(r: 170, g: 0, b: 85, a: 192), tolerance: 1))
    }

    @Test func encodeDecodeRoundTrip() throws {
        let bitmaps = [TestBitmaps.gradient(width: 20, height: 10, alpha: true),
                       TestBitmaps.quadrants(width: 20, height: 10), PNGFixtures.solid(20, 10, .clear)]
        let source = Image(frames: zip(bitmaps, [0.05, 0.5, 1.25]).map { ImageFrame(bitmap: $0, duration: $1) },
                           loopCount: 2)
        let data = try coder.encode(source, as: .apng, options: .default)
        #expect(ImageFormat.detect(data) == .apng)
        let image = try decode(data)
        #expect(image.format == .apng)
        #expect(image.loopCount == 2)
        #expect(image.frames.map(\.bitmap) == bitmaps)
        #expect(image.frames.map(\.duration) == [0.05, 0.5, 1.25])
        // A viewer that knows nothing of APNG sees frame 0 as the still default image.
        let defaultImage = try data.withUnsafeBytes {
            try PNGDecoder.decodeBitmap($0.bindMemory(to: UInt8.self), limits: .default)
        }
        #expect(defaultImage == bitmaps[0])

        let opaque = Image(frames: [ImageFrame(bitmap: bitmaps[1], duration: 0.1),
                                    ImageFrame(bitmap: PNGFixtures.solid(20, 10, red), duration: 0.2)])
        let back = try decode(try coder.encode(opaque, as: .png, options: .default))
        #expect(back.frames.count == 2 && back.loopCount == 0)
        #expect(back.frames[1].bitmap.pixel(x: 5, y: 5) == red)

        let still = try decode(try coder.encode(opaque, as: .apng, options: EncodeOptions(firstFrameOnly: true)))
        #expect(!still.isAnimated && still.format == .png)
        #expect(TestBitmaps.isUprightQuadrants(still.bitmap))
    }

    @Test func thumbnailScalesEveryFrame() throws {
        let frames = [Frame(bitmap: TestBitmaps.quadrants(width: 40, height: 20)),
                      Frame(bitmap: TestBitmaps.quadrants(width: 40, height: 20))]
        let data = PNGFixtures.apng(canvas: PixelSize(width: 40, height: 20), frames: frames)
        let image = try decode(data, DecodeOptions(thumbnailPixelSize: PixelSize(width: 10, height: 10)))
        #expect(image.frames.count == 2)
        #expect(image.frames.allSatisfy { $0.bitmap.size == PixelSize(width: 10, height: 5) })
        #expect(TestBitmaps.isUprightQuadrants(image.frames[1].bitmap))
    }

    @Test func frameOutsideCanvasIsRefused() throws {
        let frames = [Frame(bitmap: solid(4, 4, red)), Frame(bitmap: solid(2, 2, green), x: 3, y: 0)]
        let error = try #require(throws: WebImageError.self) {
            try decode(PNGFixtures.apng(canvas: canvas, frames: frames))
        }
        #expect(error.code == .badImageData)
        #expect(error.message.contains("outside"))
    }

    @Test func limitsAreCheckedBeforeDecoding() throws {
        let frames = (0..<5).map { _ in Frame(bitmap: solid(4, 4, red)) }
        let data = PNGFixtures.apng(canvas: canvas, frames: frames)
        let tooMany = try #require(throws: WebImageError.self) {
            try decode(data, DecodeOptions(limits: DecodeLimits(maxFrames: 3)))
        }
        #expect(tooMany.code == .imageTooLarge)
        // The byte limit bounds frames held at once: all of them now is refused, lazily is not.
        let small = DecodeLimits(maxTotalBytes: 4 * 4 * 4 * 4)
        let tooBig = try #require(throws: WebImageError.self) {
            try decode(data, DecodeOptions(limits: small, preloadsAllFrames: true))
        }
        #expect(tooBig.code == .imageTooLarge)
        #expect(try decode(data, DecodeOptions(limits: small)).frameCount == 5)
        #expect(try decode(data, DecodeOptions(firstFrameOnly: true, limits: DecodeLimits(maxFrames: 3))).frames.count == 1)
    }

    @Test func truncatedAndCorruptAreRefused() throws {
        let data = PNGFixtures.apng(canvas: canvas, frames: [Frame(bitmap: solid(4, 4, red)),
                                                             Frame(bitmap: solid(4, 4, green))])
        for cut in [data.count - 5, data.count - 30, data.count / 2] {
            let error = try #require(throws: WebImageError.self) { try decode(data.prefix(cut)) }
            #expect(error.code == .badImageData)
        }
        // A frame whose zlib data is cut short inside an otherwise well-formed file.
        var writer = PNGWriter()
        writer.appendChunk(PNGChunks.IHDR, PNGFixtures.ihdr(4, 4))
        writer.appendChunk(PNGChunks.acTL, PNGWriter.bigEndian(UInt32(1)) + PNGWriter.bigEndian(UInt32(0)))
        writer.appendChunk(PNGChunks.fcTL, PNGWriter.bigEndian(UInt32(0)) + PNGWriter.bigEndian(UInt32(4))
                            + PNGWriter.bigEndian(UInt32(4)) + [UInt8](repeating: 0, count: 8) + [0, 1, 0, 10, 0, 0])
        writer.appendChunk(PNGChunks.IDAT, Array(PNGFixtures.zlibStored([UInt8](repeating: 0, count: 68)).prefix(30)))
        writer.appendChunk(PNGChunks.IEND, [])
        let error = try #require(throws: WebImageError.self) { try decode(Data(writer.bytes)) }
        #expect(error.code == .badImageData)
    }
}
