import Foundation
import Testing
@testable import WebImage
@testable import WebImageCodecs

/// Image work under a cancelled ``WorkCancellation`` stops inside its loops (the JPEG and PNG
/// decoders' rows, libjxl's tasks, GIF rows, the resampler's rows, the WebP encoder's macroblock
/// rows, the PNG encoder's rows, TIFF strips), and ``WorkCancellation/run(_:)``
/// never hands out what stopped early.
@Suite("Work cancellation")
struct WorkCancellationTests {
    /// What `body` itself threw (or nil), run under an already cancelled cancellation, and what
    /// `run` threw around it.
    private func insideCancelled(_ body: @escaping () throws -> Void) -> (inner: WebImageError.Code?, outer: WebImageError.Code?) {
        let cancellation = WorkCancellation()
        cancellation.cancel()
        var inner: WebImageError.Code?
        var outer: WebImageError.Code?
        do {
            try cancellation.run {
                do { try body() } catch let error as WebImageError { inner = error.code }
            }
        } catch let error as WebImageError {
            outer = error.code
        } catch {}
        return (inner, outer)
    }

    @Test func theJPEGDecoderStopsBeforeItsFirstRows() throws {
        for jpeg in [try JPEGFixtures.encode(TestBitmaps.gradient(width: 256, height: 256)),
                     try JPEGFixtures.progressive(TestBitmaps.gradient(width: 256, height: 256))] {
            var out = [UInt8](repeating: 7, count: 256 * 256 * 4)
            let (inner, outer) = insideCancelled {
                try jpeg.withUnsafeBytes { raw in
                    try out.withUnsafeMutableBufferPointer { buffer in
                        _ = try JPEGRowDecoder.decode(raw.bindMemory(to: UInt8.self), into: buffer,
                                                      size: PixelSize(width: 256, height: 256),
                                                      factor: .init(num: 1, denom: 1), cmyk: false, fast: false)
                    }
                }
            }
            #expect(inner == .cancelled)
            #expect(outer == .cancelled)
            // Stopped before the first row was written: the last rows are as they were.
            #expect(out.suffix(1024).allSatisfy { $0 == 7 })
        }
    }

    @Test func theResamplerStopsAtARowBlock() {
        let source = TestBitmaps.gradient(width: 300, height: 300)
        // The resampler does not throw; what it made is dropped by `run`.
        let (inner, outer) = insideCancelled { _ = Resampler.resize(source, to: PixelSize(width: 200, height: 200)) }
        #expect(inner == nil)
        #expect(outer == .cancelled)
    }

    @Test func theWebPEncoderStops() {
        let (inner, outer) = insideCancelled {
            _ = try WebPEncoder.encode(TestBitmaps.gradient(width: 128, height: 128), quality: 80, lossless: false)
        }
        #expect(inner == .cancelled)
        #expect(outer == .cancelled)
    }

    @Test func thePNGEncoderStops() {
        let (inner, outer) = insideCancelled {
            _ = try PNGEncoder.encode(TestBitmaps.gradient(width: 128, height: 128))
        }
        #expect(inner == .cancelled)
        #expect(outer == .cancelled)
    }

    @Test func thePNGDecoderStopsBetweenRowBlocks() throws {
        let rgba8 = try PNGCoder().encode(Image(bitmap: TestBitmaps.gradient(width: 96, height: 96)), as: .png,
                                          options: .default)
        let row16 = (0..<64).flatMap { x -> [UInt8] in [UInt8(x), 0, 0, 0, 0, 0, 0xFF, 0xFF] }
        let rgba16 = PNGFixtures.png(width: 64, height: 64, depth: 16, rows: Array(repeating: row16, count: 64))
        let interlaced = PNGFixtures.interlacedPNG(TestBitmaps.gradient(width: 64, height: 64))
        for png in [rgba8, rgba16, interlaced] {
            let (inner, outer) = insideCancelled { _ = try PNGCoder().decode(png, options: .default) }
            #expect(inner == .cancelled)
            #expect(outer == .cancelled)
        }
    }

    @Test func theJPEGXLDecoderAndEncoderStopBetweenTheirTasks() throws {
        let bitmap = TestBitmaps.gradient(width: 160, height: 120)
        let jxl = try JXLEncoder.encode(bitmap, quality: 80, lossless: false)
        let decoded = insideCancelled { _ = try JXLCoder().decode(jxl, options: .default) }
        #expect(decoded.inner == .cancelled)
        #expect(decoded.outer == .cancelled)
        let encoded = insideCancelled { _ = try JXLEncoder.encode(bitmap, quality: 80, lossless: false) }
        #expect(encoded.inner == .cancelled)
        #expect(encoded.outer == .cancelled)
        // Not cancelled, the same runner decodes the whole image.
        #expect(try JXLCoder().decode(jxl, options: .default).bitmap.size == bitmap.size)
    }

    @Test func theGIFDecoderAndEncoderStop() throws {
        let image = Image(bitmap: TestBitmaps.gradient(width: 120, height: 90))
        let gif = try GIFCoder().encode(image, as: .gif, options: .default)
        let decoded = insideCancelled { _ = try GIFCoder().decode(gif, options: .default) }
        #expect(decoded.inner == .cancelled)
        #expect(decoded.outer == .cancelled)
        let encoded = insideCancelled { _ = try GIFCoder().encode(image, as: .gif, options: .default) }
        #expect(encoded.inner == .cancelled)
        #expect(encoded.outer == .cancelled)
    }

    @Test func theWebPDecoderStopsBetweenBlocks() throws {
        let webp = try WebPEncoder.encode(TestBitmaps.gradient(width: 128, height: 128), quality: 80, lossless: false)
        let (inner, outer) = insideCancelled { _ = try WebPCoder().decode(webp, options: .default) }
        #expect(inner == .cancelled)
        #expect(outer == .cancelled)
    }

    @Test func theTIFFEncoderAndDecoderStopBetweenStrips() throws {
        let (inner, outer) = insideCancelled { _ = try TIFFEncoder.encode(TestBitmaps.gradient(width: 64, height: 64)) }
        #expect(inner == .cancelled)
        #expect(outer == .cancelled)
        let tiff = try TIFFEncoder.encode(TestBitmaps.gradient(width: 64, height: 64))
        let decoded = insideCancelled { _ = try TIFFCoder().decode(tiff, options: .default) }
        #expect(decoded.inner == .cancelled)
        #expect(decoded.outer == .cancelled)
    }

    @Test func workNotCancelledReturnsItsValueAndOutsideRunNothingIsCurrent() throws {
        let cancellation = WorkCancellation()
        #expect(!WorkCancellation.isCurrentCancelled)
        let value = try cancellation.run { () -> Int in
            #expect(WorkCancellation.current === cancellation)
            return 42
        }
        #expect(value == 42)
        #expect(WorkCancellation.current == nil)
        // Nested runs restore the outer one.
        let outer = WorkCancellation()
        try outer.run {
            try cancellation.run { #expect(WorkCancellation.current === cancellation) }
            #expect(WorkCancellation.current === outer)
        }
    }
}
