import CWebP
import Foundation
import Testing
@testable import WebImage
@testable import WebImageCodecs
@testable import WebImageLoading

/// Animated WebP frames that cover only part of the canvas, with each disposal and blend mode set
/// by hand through libwebp's muxer (WebPAnimEncoder picks its own modes, so it cannot pin them),
/// checked pixel by pixel on the decoded canvases.
@Suite("WebP coder: sub-rectangle disposal and blending")
struct WebPCompositionTests {
    /// One ANMF frame: a still lossless WebP placed at an even offset (the format stores x/2, y/2).
    struct Frame {
        var bitmap: Bitmap
        var x = 0, y = 0
        var disposeToBackground = false
        var alphaBlend = true
    }

    /// A 20×20 animation, looping forever, every frame shown 0.1 s.
    static func animation(_ frames: [Frame]) throws -> Data {
        guard let mux = WebPMuxNew() else { throw WebImageError(.encodingFailed, "WebPMuxNew failed") }
        defer { WebPMuxDelete(mux) }
        for frame in frames {
            let still = try WebPFixtures.encode(frame.bitmap, lossless: true)
            let pushed = still.withUnsafeBytes { raw -> WebPMuxError in
                var info = WebPMuxFrameInfo()
                info.bitstream = WebPData(bytes: raw.bindMemory(to: UInt8.self).baseAddress, size: raw.count)
                info.x_offset = Int32(frame.x)
                info.y_offset = Int32(frame.y)
                info.duration = 100
                info.id = WEBP_CHUNK_ANMF
                info.dispose_method = frame.disposeToBackground ? WEBP_MUX_DISPOSE_BACKGROUND : WEBP_MUX_DISPOSE_NONE
                info.blend_method = frame.alphaBlend ? WEBP_MUX_BLEND : WEBP_MUX_NO_BLEND
                return WebPMuxPushFrame(mux, &info, 1)
            }
            guard pushed == WEBP_MUX_OK else { throw WebImageError(.encodingFailed, "WebPMuxPushFrame: \(pushed)") }
        }
        var params = WebPMuxAnimParams(bgcolor: 0xFFFF_FFFF, loop_count: 0)
        guard WebPMuxSetAnimationParams(mux, &params) == WEBP_MUX_OK,
              WebPMuxSetCanvasSize(mux, 20, 20) == WEBP_MUX_OK else {
            throw WebImageError(.encodingFailed, "cannot set the animation parameters")
        }
        var output = WebPData()
        defer { WebPDataClear(&output) }
        guard WebPMuxAssemble(mux, &output) == WEBP_MUX_OK, let bytes = output.bytes else {
            throw WebImageError(.encodingFailed, "WebPMuxAssemble failed")
        }
        return Data(bytes: bytes, count: output.size)
    }

    /// A `width`×`height` bitmap: its left half `left`, its right half `right`.
    static func halves(_ width: Int, _ height: Int, left: RGBA, right: RGBA) -> Bitmap {
        var pixels: [UInt8] = []
        for _ in 0..<height {
            for x in 0..<width {
                let color = x < width / 2 ? left : right
                pixels += [color.r, color.g, color.b, color.a]
            }
        }
        return Bitmap(width: width, height: height, pixels: pixels)
    }

    /// Red canvas; then an 8×8 frame at (4,4), green | transparent, alpha-blended and disposed to
    /// background; then a 6×6 frame at (12,12), transparent | blue, not blended.
    static let frames = [
        Frame(bitmap: Bitmap(width: 20, height: 20, fill: TestBitmaps.red)),
        Frame(bitmap: halves(8, 8, left: TestBitmaps.green, right: .clear), x: 4, y: 4,
              disposeToBackground: true, alphaBlend: true),
        Frame(bitmap: halves(6, 6, left: .clear, right: TestBitmaps.blue), x: 12, y: 12,
              disposeToBackground: false, alphaBlend: false),
    ]

    @Test func blendedSubRectangleKeepsTheCanvasUnderItsTransparentPixels() throws {
        let image = try WebPCoder().decode(try Self.animation(Self.frames), options: .default)
        #expect(image.frames.count == 3)
        #expect(image.pixelSize == PixelSize(width: 20, height: 20))
        let second = image.frames[1].bitmap
        #expect(second.pixel(x: 5, y: 5) == TestBitmaps.green)    // the frame's opaque half
        #expect(second.pixel(x: 10, y: 10) == TestBitmaps.red)    // its transparent half, blended over red
        #expect(second.pixel(x: 1, y: 1) == TestBitmaps.red)      // outside the frame
        #expect(second.pixel(x: 15, y: 15) == TestBitmaps.red)
    }

    @Test func disposeToBackgroundClearsOnlyThatRectangleAndNoBlendReplaces() throws {
        let image = try WebPCoder().decode(try Self.animation(Self.frames), options: .default)
        let third = try #require(image.frames.count == 3 ? image.frames[2].bitmap : nil)
        // Frame 2's rectangle (4..<12) was disposed to background: transparent, both halves.
        #expect(third.pixel(x: 5, y: 5).a == 0)
        #expect(third.pixel(x: 10, y: 10).a == 0)
        // Frame 3 (12..<18) without blending: its transparent half replaces the red under it.
        #expect(third.pixel(x: 13, y: 13).a == 0)
        #expect(third.pixel(x: 16, y: 16) == TestBitmaps.blue)
        // Untouched canvas stays red.
        #expect(third.pixel(x: 1, y: 1) == TestBitmaps.red)
        #expect(third.pixel(x: 19, y: 2) == TestBitmaps.red)
        #expect(third.pixel(x: 13, y: 19) == TestBitmaps.red)
    }

    /// The same file with frame 2 kept (no disposal) and frame 3 blended: frame 2's green stays,
    /// and frame 3's transparent half shows the red beneath.
    @Test func withoutDisposalAndWithBlendingEarlierPixelsShowThrough() throws {
        var frames = Self.frames
        frames[1].disposeToBackground = false
        frames[2].alphaBlend = true
        let image = try WebPCoder().decode(try Self.animation(frames), options: .default)
        let third = try #require(image.frames.count == 3 ? image.frames[2].bitmap : nil)
        #expect(third.pixel(x: 5, y: 5) == TestBitmaps.green)
        #expect(third.pixel(x: 10, y: 10) == TestBitmaps.red)
        #expect(third.pixel(x: 13, y: 13) == TestBitmaps.red)
        #expect(third.pixel(x: 16, y: 16) == TestBitmaps.blue)
    }
}
