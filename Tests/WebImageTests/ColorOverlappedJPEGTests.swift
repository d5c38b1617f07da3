import CTurboJPEG
import Foundation
import Synchronization
import Testing
@testable import WebImageCodecs

/// A large colour-tagged JPEG is converted band by band beside its decode
/// (`OverlappedColorConversion` over `JPEGBandedDecode`): its pixels must be exactly those of
/// TurboJPEG's whole-image decode followed by the same conversion.
@Suite("Colour: conversion beside the JPEG decode")
struct ColorOverlappedJPEGTests {
    /// 768×512: above the size where the conversion moves beside the decode.
    static let width = 768, height = 512

    /// A picture with detail in every channel, so subsampling and rounding show.
    static let pixels: [UInt8] = {
        var out = [UInt8](repeating: 255, count: width * height * 4)
        var seed: UInt32 = 12_345
        for y in 0..<height {
            for x in 0..<width {
                seed = seed &* 1_664_525 &+ 1_013_904_223
                let i: Int = (y * width + x) * 4
                let noise = Int(seed >> 12)
                let red: Int = x * 255 / width + noise & 15
                let green: Int = y * 255 / height + (noise >> 4) & 15
                let blue: Int = (x + y) / 5 + (noise >> 8) & 31
                out[i] = UInt8(truncatingIfNeeded: red)
                out[i + 1] = UInt8(truncatingIfNeeded: green)
                out[i + 2] = UInt8(truncatingIfNeeded: blue)
            }
        }
        return out
    }()

    /// The colour plan for pixels tagged with `icc`: RGB, or plain CMYK.
    static func plan(icc: Data, cmyk: Bool) -> ColorManagement.Plan {
        ColorManagement.plan(icc: icc, source: cmyk ? .cmyk(inverted: false) : .rgb, options: .default)
    }

    /// The untagged file's pixels, decoded whole by TurboJPEG, then converted as `icc` asks.
    func reference(_ plain: Data, icc: Data, size: PixelSize, cmyk: Bool = false, fast: Bool = false) throws -> [UInt8] {
        let plan = Self.plan(icc: icc, cmyk: cmyk)
        #expect(plan.conversion != nil)
        var out = try #require(JPEGFixtures.turboDecode(plain, size: size, pixelFormat: cmyk ? TJPF_CMYK : TJPF_RGBA,
                                                        fast: fast))
        out.withUnsafeMutableBufferPointer { plan.apply($0) }
        return out
    }

    /// The banded decode of `tagged` with its conversion beside it.
    func banded(_ tagged: Data, icc: Data, size: PixelSize, factor: JPEGScaling.Factor, cmyk: Bool = false,
                fast: Bool = false) throws -> [UInt8] {
        let plan = Self.plan(icc: icc, cmyk: cmyk)
        let conversion = try #require(plan.conversion)
        var out = [UInt8](repeating: 0, count: size.area * 4)
        try tagged.withUnsafeBytes { raw in
            try out.withUnsafeMutableBufferPointer { buffer in
                let overlapped = try #require(OverlappedColorConversion.start(
                    conversion, pixels: buffer, width: size.width, height: size.height, minimumPixels: 0, coreLimit: .max))
                do {
                    _ = try JPEGRowDecoder.decode(raw.bindMemory(to: UInt8.self), into: buffer, size: size,
                                                    factor: factor, cmyk: cmyk, fast: fast, overlapped: overlapped)
                } catch {
                    overlapped.finish(convertingRest: false)
                    throw error
                }
                overlapped.finish(convertingRest: true)
            }
        }
        return out
    }

    @Test(arguments: [TJSAMP_420, TJSAMP_444, TJSAMP_422])
    func decoderMatchesWholeDecodeThenConversion(subsampling: TJSAMP) throws {
        let plain = try JPEGFixtures.compress(Self.pixels, width: Self.width, height: Self.height,
                                              subsampling: subsampling, quality: 85)
        let tagged = ColorFixtures.jpeg(plain, icc: ColorFixtures.displayP3)
        let image = try JPEGCoder().decode(tagged, options: .default)
        let size = PixelSize(width: Self.width, height: Self.height)
        #expect(image.bitmap.pixels == (try reference(plain, icc: ColorFixtures.displayP3, size: size)))
        #expect(image.colorProfile?.description == "Test Display P3")
    }

    /// Many conversions at once, more helpers than cores: helpers are paused and resumed by
    /// the scheduler, decoders take bands over from them, and every result is still exact.
    @Test func concurrentDecodesWithBusyHelpersStayExact() throws {
        let plain = try JPEGFixtures.compress(Self.pixels, width: Self.width, height: Self.height)
        let tagged = ColorFixtures.jpeg(plain, icc: ColorFixtures.displayP3)
        let size = PixelSize(width: Self.width, height: Self.height)
        let want = try reference(plain, icc: ColorFixtures.displayP3, size: size)
        let results = Mutex<[Bool]>([])
        DispatchQueue.concurrentPerform(iterations: 12) { _ in
            let got = try? banded(tagged, icc: ColorFixtures.displayP3, size: size, factor: .init(num: 1, denom: 1))
            let exact: Bool = got == want
            results.withLock { $0.append(exact) }
        }
        let exact = results.withLock { $0 }
        #expect(exact.count == 12)
        #expect(exact.allSatisfy { $0 }, "\(exact.filter { !$0 }.count) of 12 decodes differ")
    }

    @Test func progressiveFileMatches() throws {
        let plain = try JPEGFixtures.compress(Self.pixels, width: Self.width, height: Self.height,
                                              flags: TJFLAG_PROGRESSIVE)
        let tagged = ColorFixtures.jpeg(plain, icc: ColorFixtures.displayP3)
        let image = try JPEGCoder().decode(tagged, options: .default)
        let size = PixelSize(width: Self.width, height: Self.height)
        #expect(image.bitmap.pixels == (try reference(plain, icc: ColorFixtures.displayP3, size: size)))
    }

    @Test func scaledAndFastDecodesMatch() throws {
        let plain = try JPEGFixtures.compress(Self.pixels, width: Self.width, height: Self.height)
        let tagged = ColorFixtures.jpeg(plain, icc: ColorFixtures.displayP3)
        let half = JPEGScaling.Factor(num: 1, denom: 2)
        let size = half.scaled(PixelSize(width: Self.width, height: Self.height))
        for fast in [false, true] {
            let got = try banded(tagged, icc: ColorFixtures.displayP3, size: size, factor: half, fast: fast)
            #expect(got == (try reference(plain, icc: ColorFixtures.displayP3, size: size, fast: fast)), "fast: \(fast)")
        }
    }

    @Test func cmykWithProfileMatches() throws {
        let plain = try JPEGFixtures.compress(Self.pixels, width: Self.width, height: Self.height,
                                              pixelFormat: TJPF_CMYK, subsampling: TJSAMP_444)
        let tagged = ColorFixtures.jpeg(plain, icc: ColorFixtures.cmyk)
        let size = PixelSize(width: Self.width, height: Self.height)
        let got = try banded(tagged, icc: ColorFixtures.cmyk, size: size, factor: .init(num: 1, denom: 1), cmyk: true)
        #expect(got == (try reference(plain, icc: ColorFixtures.cmyk, size: size, cmyk: true)))
    }

    @Test func truncatedFileFailsWholeAndShowsAsPartial() throws {
        let plain = try JPEGFixtures.compress(Self.pixels, width: Self.width, height: Self.height)
        let cut = Data(plain.prefix(plain.count * 2 / 3))
        let tagged = ColorFixtures.jpeg(cut, icc: ColorFixtures.displayP3)
        #expect(JPEGFixtures.errorCode { try JPEGCoder().decode(tagged, options: .default) } == .badImageData)
        let partial = try JPEGDecoder.decode(tagged, options: .default, mode: .partial)
        let size = PixelSize(width: Self.width, height: Self.height)
        #expect(partial.bitmap.pixels == (try reference(cut, icc: ColorFixtures.displayP3, size: size)))
        #expect(partial.isPartial)
    }

    @Test func corruptDataIsAnErrorNotACrash() throws {
        var bytes = [UInt8](try JPEGFixtures.compress(Self.pixels, width: Self.width, height: Self.height))
        // A frame size the decoder cannot have planned for: the banded decode refuses it.
        let tagged = ColorFixtures.jpeg(Data(bytes), icc: ColorFixtures.displayP3)
        let size = PixelSize(width: Self.width + 8, height: Self.height)
        #expect(throws: WebImageError.self) {
            _ = try banded(tagged, icc: ColorFixtures.displayP3, size: size, factor: .init(num: 1, denom: 1))
        }
        // Markers strewn over the entropy-coded data: the same error, or the same damaged pixels,
        // as TurboJPEG's whole-image decode.
        for i in stride(from: bytes.count / 3, to: bytes.count - 2, by: 7) { bytes[i] = 0xFF; bytes[i + 1] = 0xC4 }
        let damaged = Data(bytes)
        let tagged2 = ColorFixtures.jpeg(damaged, icc: ColorFixtures.displayP3)
        let full = PixelSize(width: Self.width, height: Self.height)
        let viaBands = try? banded(tagged2, icc: ColorFixtures.displayP3, size: full, factor: .init(num: 1, denom: 1))
        let whole = try? reference(damaged, icc: ColorFixtures.displayP3, size: full)
        let sameOutcome: Bool = viaBands == whole
        #expect(sameOutcome, "the banded and whole decodes differ")
    }

    @Test func failedDecodeStopsConvertingAtTheReportedRows() throws {
        let plan = ColorManagement.plan(icc: ColorFixtures.displayP3, source: .rgb, options: .default)
        let conversion = try #require(plan.conversion)
        let width = 64, height = 100
        var pixels = [UInt8](repeating: 0, count: width * height * 4)
        for i in stride(from: 0, to: pixels.count, by: 4) { pixels[i] = 230; pixels[i + 1] = 60; pixels[i + 2] = 40 }
        let original = pixels
        pixels.withUnsafeMutableBufferPointer { buffer in
            guard let overlapped = OverlappedColorConversion.start(conversion, pixels: buffer, width: width,
                                                                    height: height, minimumPixels: 0, coreLimit: .max) else {
                Issue.record("no helper slot on a machine with \(ProcessInfo.processInfo.activeProcessorCount) cores")
                return
            }
            overlapped.rowsFinished(40)
            overlapped.finish(convertingRest: false)
        }
        let rowBytes: Int = width * 4
        let reported: Int = 40 * rowBytes
        // Rows below the last report are never touched; rows above it may or may not have been
        // claimed before the failure, and are converted exactly once when they were.
        let below: [UInt8] = Array(pixels[reported...])
        let belowBefore: [UInt8] = Array(original[reported...])
        #expect(below == belowBefore)
        let plainRow: [UInt8] = Array(original[0..<rowBytes])
        var once: [UInt8] = plainRow
        once.withUnsafeMutableBufferPointer { conversion.apply($0) }
        for row in 0..<40 {
            let start: Int = row * rowBytes
            let got: [UInt8] = Array(pixels[start..<(start + rowBytes)])
            let untouched: Bool = got == plainRow
            let convertedOnce: Bool = got == once
            #expect(untouched || convertedOnce, "row \(row)")
        }
    }
}
