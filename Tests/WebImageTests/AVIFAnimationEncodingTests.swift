import CAVIF
import Foundation
import Synchronization
import Testing
@testable import WebImage
@testable import WebImageCodecs

/// Animations written as AVIF image sequences and read back with our sequence decoder: frame
/// count, durations, pixels, alpha, lossless frames, and work that stops between frames.
@Suite("AVIF sequence encoding")
struct AVIFAnimationEncodingTests {
    let coder = AVIFCoder()
    static let colours = [RGBA(r: 255, g: 0, b: 0, a: 255), RGBA(r: 0, g: 255, b: 0, a: 255),
                          RGBA(r: 0, g: 0, b: 255, a: 255)]
    static let durations = [0.1, 0.25, 0.04]

    static func solidAnimation(width: Int = 48, height: Int = 32) -> Image {
        let frames = zip(colours, durations).map { colour, duration in
            ImageFrame(bitmap: Bitmap(width: width, height: height, fill: colour), duration: duration)
        }
        return Image(frames: frames, loopCount: 0, format: .gif)
    }

    static func isClose(_ pixel: RGBA, _ colour: RGBA, within tolerance: Int = 8) -> Bool {
        abs(Int(pixel.r) - Int(colour.r)) <= tolerance && abs(Int(pixel.g) - Int(colour.g)) <= tolerance
            && abs(Int(pixel.b) - Int(colour.b)) <= tolerance && abs(Int(pixel.a) - Int(colour.a)) <= tolerance
    }

    @Test func framesDelaysAndColoursRoundTrip() throws {
        let data = try coder.encode(Self.solidAnimation(), as: .avif, options: EncodeOptions(compressionQuality: 0.8))
        #expect(ImageFormat.detect(data) == .avif)
        #expect(coder.imageInfo(for: data)?.frameCount == 3)
        let image = try coder.decode(data, options: .default)
        #expect(image.isAnimated && image.frameCount == 3 && image.loopCount == 0)
        #expect((0..<3).map(image.frameDuration(at:)) == Self.durations)
        #expect(image.pixelSize == PixelSize(width: 48, height: 32))
        for index in 0..<3 {
            let frame = try image.frame(at: index).bitmap
            for (x, y) in [(0, 0), (24, 16), (47, 31)] {
                #expect(Self.isClose(frame.pixel(x: x, y: y), Self.colours[index]), "frame \(index) at \(x),\(y): \(frame.pixel(x: x, y: y))")
            }
        }
    }

    @Test func losslessFramesAreExact() throws {
        let frames = [TestBitmaps.gradient(width: 40, height: 30, alpha: true), TestBitmaps.quadrants(width: 40, height: 30)]
        let image = Image(frames: frames.map { ImageFrame(bitmap: $0, duration: 0.5) }, loopCount: 0)
        let decoded = try coder.decode(try coder.encode(image, as: .avif, options: EncodeOptions(lossless: true)),
                                       options: .default)
        #expect(decoded.frameCount == 2)
        for index in 0..<2 { #expect(try decoded.frame(at: index).bitmap == frames[index], "frame \(index)") }
    }

    @Test func aLazyAnimationKeepsAlphaThatAppearsAfterAnOpaqueFirstFrame() throws {
        // The encoder cannot know a lazily decoded frame's alpha before it is decoded, so the
        // sequence has an alpha track from its first, opaque, frame on.
        let decoder = ScriptedFrames(size: PixelSize(width: 32, height: 32)) { index in
            index == 0 ? RGBA(r: 200, g: 100, b: 50, a: 255) : RGBA(r: 20, g: 40, b: 220, a: 96)
        }
        let data = try coder.encode(try decoder.animation(frames: 2), as: .avif, options: EncodeOptions(compressionQuality: 0.9))
        #expect(try Self.hasAlphaTrack(data))
        let decoded = try coder.decode(data, options: .default)
        #expect(Self.isClose(try decoded.frame(at: 0).bitmap.pixel(x: 16, y: 16), RGBA(r: 200, g: 100, b: 50, a: 255)))
        let second = try decoded.frame(at: 1).bitmap.pixel(x: 16, y: 16)
        #expect(abs(Int(second.a) - 96) <= 4, "\(second)")
    }

    @Test func heldOpaqueFramesAreWrittenWithoutAlpha() throws {
        let data = try coder.encode(Self.solidAnimation(), as: .avif, options: .default)
        #expect(try !Self.hasAlphaTrack(data))
        #expect(try !coder.decode(data, options: .default).frame(at: 1).bitmap.hasAlpha)
    }

    /// Whether libavif finds an alpha track in the sequence `data`.
    static func hasAlphaTrack(_ data: Data) throws -> Bool {
        try data.withUnsafeBytes { raw in
            let decoder = try AVIFDecoder.parsedDecoder(raw.bindMemory(to: UInt8.self), sizeLimit: 1 << 24)
            defer { avifDecoderDestroy(decoder) }
            return decoder.pointee.alphaPresent == AVIF_TRUE
        }
    }

    @Test func maxPixelSizeShrinksEveryFrame() throws {
        let data = try coder.encode(Self.solidAnimation(), as: .avif,
                                    options: EncodeOptions(maxPixelSize: PixelSize(width: 24, height: 24)))
        let decoded = try coder.decode(data, options: .default)
        #expect(decoded.frameCount == 3 && decoded.pixelSize == PixelSize(width: 24, height: 16))
        #expect(Self.isClose(try decoded.frame(at: 2).bitmap.pixel(x: 12, y: 8), Self.colours[2]))
    }

    @Test func durationsAreWholeMillisecondsOfTheTimeShown() {
        #expect(AVIFAnimationEncoder.duration(0.1) == 100)
        #expect(AVIFAnimationEncoder.duration(0.0123) == 12)
        // As shown by the library's rule for very short delays: 0.1 s.
        #expect(AVIFAnimationEncoder.duration(0) == 100)
        #expect(AVIFAnimationEncoder.duration(-3) == 100)
        #expect(AVIFAnimationEncoder.duration(.nan) == 100)
        #expect(AVIFAnimationEncoder.duration(.infinity) == 100)
        #expect(AVIFAnimationEncoder.duration(1e12) == UInt64(UInt32.max))
    }

    @Test func theEncodeStopsBetweenFramesWhenCancelled() throws {
        let cancellation = WorkCancellation()
        let decoder = ScriptedFrames(size: PixelSize(width: 16, height: 16), cancelling: cancellation, atFrame: 1) { _ in .white }
        let image = try decoder.animation(frames: 5)
        var inner: WebImageError.Code?
        #expect(throws: WebImageError.self) {
            try cancellation.run {
                do {
                    _ = try coder.encode(image, as: .avif, options: .default)
                } catch let error as WebImageError {
                    inner = error.code
                    throw error
                }
            }
        }
        #expect(inner == .cancelled)
        // Frame 1 was the last one asked for: the encoder looked before frame 2.
        #expect(decoder.requested == [0, 1])
    }
}

/// A lazily decoded animation whose frame `i` is a solid `colour(i)`; records the frames asked
/// for and can cancel a ``WorkCancellation`` when one frame is asked for.
private final class ScriptedFrames: AnimationFrameDecoding, Sendable {
    let size: PixelSize
    let colour: @Sendable (Int) -> RGBA
    let cancellation: WorkCancellation?
    let cancelAt: Int?
    private let asked = Mutex([Int]())

    init(size: PixelSize, cancelling cancellation: WorkCancellation? = nil, atFrame cancelAt: Int? = nil,
         colour: @escaping @Sendable (Int) -> RGBA) {
        self.size = size
        self.colour = colour
        self.cancellation = cancellation
        self.cancelAt = cancelAt
    }

    var requested: [Int] { asked.withLock { $0 } }

    func animation(frames: Int) throws -> Image {
        let header = AnimationHeader(loopCount: 0, durations: Array(repeating: 0.1, count: frames), frameSize: size)
        let poster = try decodeFrame(at: 0)
        return Image(animation: AnimatedFrames(header: header, data: nil, poster: poster, decoder: self))
    }

    func decodeFrame(at index: Int) throws -> Bitmap {
        asked.withLock { $0.append(index) }
        if index == cancelAt { cancellation?.cancel() }
        return Bitmap(width: size.width, height: size.height, fill: colour(index))
    }
}
