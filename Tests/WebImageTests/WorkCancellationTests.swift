import Foundation
import Testing
@testable import WebImage
@testable import WebImageCodecs

/// Image work under a cancelled ``WorkCancellation`` stops inside its loops (the JPEG decoder's
/// scans and rows, the resampler's rows, the WebP encoder's macroblock rows), and ``WorkCancellation/run(_:)``
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
