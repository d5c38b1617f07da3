import CAVIF
import Foundation
import Testing
@testable import WebImage
@testable import WebImageCodecs

/// AVIF sequences (`avis`) as animations: frame count and durations from the container, every
/// frame decoded on request equal to libavif's reference decoder (`avifdec --index N -d 8`), in
/// any order, and limits checked before pixels are decoded.
///
/// Fixtures (Tests/Fixtures/make-fixtures.sh, avifenc 0.11.1 from tools/mkframes.py's frames):
/// - `avif/animation.avif`: six 48×32 8-bit frames with alpha, a keyframe every two frames,
///   `avifenc -s 8 --min 24 --max 28 -k 2 --timescale 1000 --duration 100 frame-0.png
///   --duration 50 frame-1.png --duration 200 frame-2.png --duration 30 frame-3.png
///   --duration 5 frame-4.png --duration 100 frame-5.png animation.avif`;
/// - `avif/animation-10bit-irot.avif`: three 10-bit frames turned by `irot` 1 and `imir` 0,
///   `avifenc -s 8 --min 24 --max 28 -d 10 --irot 1 --imir 0 --timescale 10 frame-0.png
///   frame-2.png frame-4.png animation-10bit-irot.avif`;
/// - `avif/reference/animation-N.png` and `animation-10bit-irot-N.png`: `avifdec -d 8 --index N`
///   (which applies no irot/imir; the test turns those references).
@Suite("AVIF sequences")
struct AVIFAnimationTests {
    let coder = AVIFCoder()
    static let path = "avif/animation.avif"
    /// 100, 50, 200, 30, 5 and 100 ms; 5 ms is under the shortest honoured delay, so 0.1 s.
    static let durations = [0.1, 0.05, 0.2, 0.03, 0.1, 0.1]

    func reference(_ index: Int, of name: String = "animation") throws -> Bitmap {
        try CodecFixtures.reference("avif/\(name)-\(index).avif")
    }

    @Test func headerFactsWithoutDecodingFrames() throws {
        let data = try CodecFixtures.data(Self.path)
        let image = try coder.decode(data, options: .default)
        let animation = try #require(image.animation)
        #expect(image.format == .avif && image.isAnimated)
        #expect(image.frameCount == 6 && image.loopCount == 0)
        #expect((0..<6).map(image.frameDuration(at:)) == Self.durations)
        #expect(image.pixelSize == PixelSize(width: 48, height: 32))
        #expect(animation.decodeCount == 0)
        #expect(coder.imageInfo(for: data)?.frameCount == 6)
    }

    @Test func everyLazyFrameEqualsAvifdec() throws {
        let image = try coder.decode(try CodecFixtures.data(Self.path), options: .default)
        #expect(image.hasAlpha)
        for index in 0..<6 {
            let frame = try image.frame(at: index).bitmap
            // The same libavif conversion runs in both.
            #expect(CodecFixtures.maxDifference(frame, try reference(index)) == 0, "frame \(index)")
        }
        #expect(image.animation?.decodeCount == 5)
        // Consecutive frames differ: each frame is really its own.
        #expect(try image.frame(at: 1).bitmap != image.frame(at: 2).bitmap)
    }

    @Test func theFixtureHasAKeyframeEveryTwoFrames() throws {
        // What the seeking tests rely on: frames 1, 3 and 5 need their predecessor, so reaching
        // them out of order means decoding from the keyframe before them.
        var data = [UInt8](try CodecFixtures.data(Self.path))
        let keyframes = try data.withUnsafeMutableBufferPointer { bytes -> [Bool] in
            let decoder = try AVIFDecoder.parsedDecoder(UnsafeBufferPointer(bytes), sizeLimit: 1 << 20)
            defer { avifDecoderDestroy(decoder) }
            return (0..<6).map { avifDecoderIsKeyframe(decoder, UInt32($0)) != 0 }
        }
        #expect(keyframes == [true, false, true, false, true, false])
    }

    @Test func randomOrderEqualsInOrderAndTheEagerDecode() throws {
        let data = try CodecFixtures.data(Self.path)
        let eager = try coder.decode(data, options: DecodeOptions(preloadsAllFrames: true))
        #expect(eager.animation == nil && eager.frameCount == 6 && eager.loopCount == 0)
        #expect((0..<6).map(eager.frameDuration(at:)) == Self.durations)
        for index in 0..<6 {
            #expect(CodecFixtures.maxDifference(try eager.frame(at: index).bitmap, try reference(index)) == 0)
        }
        // A fresh lazy image each time, so nothing is served from the buffer: backward seeks,
        // skips and repeats all reach the right frame.
        for seed in [3, 17] as [UInt64] {
            let lazy = try coder.decode(data, options: .default)
            try LazyFrameChecks.expectSameFrames(lazy, eager, at: LazyFrameChecks.randomFrames(6, reads: 24, seed: seed))
        }
        let lazy = try coder.decode(data, options: .default)
        try LazyFrameChecks.expectSameFrames(lazy, eager, at: [5, 1, 4, 3, 0, 2, 5])
    }

    @Test func tenBitFramesAreTurnedByIrotAndImir() throws {
        let image = try coder.decode(try CodecFixtures.data("avif/animation-10bit-irot.avif"), options: .default)
        #expect(image.frameCount == 3)
        #expect(image.pixelSize == PixelSize(width: 32, height: 48))
        #expect((0..<3).map(image.frameDuration(at:)) == [0.1, 0.1, 0.1])
        let orientation = EXIFOrientation(quarterTurnsAnticlockwise: 1, thenMirror: 0)
        for index in [2, 0, 1] {
            let expected = try reference(index, of: "animation-10bit-irot").applying(orientation)
            // avifdec converts 10-bit 4:4:4 with libyuv's fixed-point coefficients; the decoder
            // uses libavif's own conversion (rounded), so colours may differ by 2 (alpha never).
            #expect(CodecFixtures.maxDifference(try image.frame(at: index).bitmap, expected) <= 2, "frame \(index)")
        }
    }

    @Test func firstFrameOnlyDecodesAStill() throws {
        let image = try coder.decode(try CodecFixtures.data(Self.path), options: DecodeOptions(firstFrameOnly: true))
        #expect(image.frameCount == 1 && !image.isAnimated && image.loopCount == 0)
        #expect(CodecFixtures.maxDifference(image.bitmap, try reference(0)) == 0)
    }

    @Test(arguments: [false, true])
    func thumbnailsScaleEveryFrame(_ preload: Bool) throws {
        let data = try CodecFixtures.data(Self.path)
        let options = DecodeOptions(thumbnailPixelSize: PixelSize(width: 24, height: 24), preloadsAllFrames: preload)
        let image = try coder.decode(data, options: options)
        #expect(image.pixelSize == PixelSize(width: 24, height: 16))
        #expect(image.isThumbnail && image.frameCount == 6)
        for index in [3, 0, 5] {
            #expect(try image.frame(at: index).bitmap == Resampler.resize(try reference(index), to: image.pixelSize),
                    "frame \(index)")
        }
    }

    @Test func tooManyFramesAreRefusedFromTheHeader() throws {
        let data = try CodecFixtures.data(Self.path)
        for preload in [false, true] {
            let options = DecodeOptions(limits: DecodeLimits(maxFrames: 5), preloadsAllFrames: preload)
            let error = CodecFixtures.error { try coder.decode(data, options: options) }
            #expect(error?.code == .imageTooLarge, "\(String(describing: error))")
            #expect(error?.message.contains("frames") == true)
        }
        #expect(try coder.decode(data, options: DecodeOptions(firstFrameOnly: true, limits: DecodeLimits(maxFrames: 1))).frameCount == 1)
    }

    @Test func preloadingCountsEveryFrameAgainstTheByteLimit() throws {
        let data = try CodecFixtures.data(Self.path)
        let limits = DecodeLimits(maxTotalBytes: 48 * 32 * 4 * 5)
        let error = CodecFixtures.error { try coder.decode(data, options: DecodeOptions(limits: limits, preloadsAllFrames: true)) }
        #expect(error?.code == .imageTooLarge)
        // Decoded lazily, the frames are held within the buffer's bound instead.
        #expect(try coder.decode(data, options: DecodeOptions(limits: limits)).frameCount == 6)
    }

    @Test func aTruncatedSequenceFailsOnlyItsLateFrames() throws {
        let whole = try CodecFixtures.data(Self.path)
        // The frames' samples end the file, in order: cutting the end damages the last frame.
        let cut = whole.prefix(whole.count - 40)
        let image = try coder.decode(cut, options: .default)
        #expect(image.frameCount == 6)
        let error = CodecFixtures.error { try image.frame(at: 5) }
        #expect(error?.code == .badImageData, "\(String(describing: error))")
        #expect(error?.message.contains("frame 6") == true, "\(String(describing: error))")
        // The frames before it, asked for after the failure, still decode.
        for index in [1, 0, 2] {
            #expect(CodecFixtures.maxDifference(try image.frame(at: index).bitmap, try reference(index)) == 0, "frame \(index)")
        }
        // Decoding every frame now fails as a whole.
        #expect(CodecFixtures.errorCode { try coder.decode(cut, options: DecodeOptions(preloadsAllFrames: true)) } == .badImageData)
    }

    @Test func cliReportsFramesAndDuration() async throws {
        let file = CodecFixtures.root.appendingPathComponent(Self.path).path
        let run = try await CLIProcess.run(["decode", "--json", file])
        #expect(run.status == 0, "\(run.stderr)")
        let line = try run.object(0)
        #expect(line["format"] as? String == "avif")
        #expect(line["frames"] as? Int == 6)
        #expect(line["loopCount"] as? Int == 0)
        let duration = try #require(line["duration"] as? Double)
        #expect(abs(duration - Self.durations.reduce(0, +)) < 1e-9)
    }
}
