import CTIFF
import Foundation
import Testing
@testable import WebImageCodecs

/// Every depth from 1 to 16 bits for gray, RGB and palette, chunky and planar, made with libtiff
/// at test time: libtiff's RGBA interface refuses most of them, so the coder unpacks them itself
/// (``TIFFPackedRows``).
@Suite("TIFF bit depths")
struct TIFFBitDepthTests {
    let coder = TIFFCoder()

    func decode(_ page: TIFFFixtures.Page) throws -> Bitmap {
        try coder.decode(try TIFFFixtures.file([page]), options: .default).bitmap
    }

    /// `value` of `bits` at 8 bits, as the coder rounds: to 16 bits, then to 8.
    static func eight(_ value: Int, bits: Int) -> UInt8 {
        let maximum = (1 << bits) - 1
        let wide = (value * 65535 + maximum / 2) / maximum
        return UInt8((wide + 128) / 257)
    }

    /// Samples spread over the depth's whole range, both ends included.
    static func ramp(_ count: Int, bits: Int) -> [UInt16] {
        let maximum = (1 << bits) - 1
        return (0..<count).map { UInt16($0 * maximum / max(count - 1, 1)) }
    }

    @Test(arguments: Array(1...16))
    func grayAtEveryDepth(bits: Int) throws {
        let samples = Self.ramp(11 * 3, bits: bits)
        for whiteIsZero in [false, true] {
            let page = TIFFFixtures.Page(width: 11, height: 3, bits: bits,
                                         photometric: whiteIsZero ? PHOTOMETRIC_MINISWHITE : PHOTOMETRIC_MINISBLACK,
                                         samplesPerPixel: 1, samples: samples, rowsPerStrip: 2)
            let bitmap = try decode(page)
            for (i, sample) in samples.enumerated() {
                var g = Self.eight(Int(sample), bits: bits)
                if whiteIsZero { g = 255 - g }
                #expect(bitmap.pixel(x: i % 11, y: i / 11) == RGBA(r: g, g: g, b: g, a: 255),
                        "\(bits) bits, white is zero: \(whiteIsZero), pixel \(i)")
            }
        }
    }

    @Test(arguments: [3, 5, 7, 10, 12, 14])
    func rgbAtOddDepthsChunkyAndPlanar(bits: Int) throws {
        let samples = Self.ramp(5 * 4 * 3, bits: bits).shuffledDeterministically()
        for planar in [false, true] {
            let page = TIFFFixtures.Page(width: 5, height: 4, bits: bits, samples: samples, planarSeparate: planar)
            let bitmap = try decode(page)
            for i in 0..<(5 * 4) {
                let want = RGBA(r: Self.eight(Int(samples[i * 3]), bits: bits), g: Self.eight(Int(samples[i * 3 + 1]), bits: bits),
                                b: Self.eight(Int(samples[i * 3 + 2]), bits: bits), a: 255)
                #expect(bitmap.pixel(x: i % 5, y: i / 5) == want, "\(bits) bits, planar: \(planar), pixel \(i)")
            }
        }
    }

    @Test func grayWithAlphaAtTwelveBits() throws {
        let page = TIFFFixtures.Page(width: 2, height: 1, bits: 12, photometric: PHOTOMETRIC_MINISBLACK, samplesPerPixel: 2,
                                     extraSamples: [UInt16(EXTRASAMPLE_UNASSALPHA)], samples: [4095, 2048, 0, 4095])
        let bitmap = try decode(page)
        #expect(bitmap.pixel(x: 0, y: 0) == RGBA(r: 255, g: 255, b: 255, a: Self.eight(2048, bits: 12)))
        #expect(bitmap.pixel(x: 1, y: 0) == RGBA(r: 0, g: 0, b: 0, a: 255))
    }

    @Test(arguments: [3, 6, 12, 16])
    func paletteAtOtherDepths(bits: Int) throws {
        let entries = 1 << bits
        // Entry i: red i × 65535 / (entries − 1), green its inverse, blue 0x8080.
        let reds = (0..<entries).map { UInt16($0 * 65535 / (entries - 1)) }
        let colormap = reds + reds.map { 65535 - $0 } + [UInt16](repeating: 0x8080, count: entries)
        let indices = Self.ramp(9, bits: bits)
        let page = TIFFFixtures.Page(width: 9, height: 1, bits: bits, photometric: PHOTOMETRIC_PALETTE, samplesPerPixel: 1,
                                     samples: indices, colormap: colormap)
        let bitmap = try decode(page)
        for (x, index) in indices.enumerated() {
            let red = reds[Int(index)]
            #expect(bitmap.pixel(x: x, y: 0) == RGBA(r: TIFFSamples.round16(red), g: TIFFSamples.round16(65535 - red),
                                                     b: 128, a: 255), "\(bits) bits, pixel \(x)")
        }
    }

    @Test func floatAndWideSamplesAreRefusedAsUnsupported() throws {
        let float = TIFFFixtures.Page(width: 2, height: 1, bits: 32, photometric: PHOTOMETRIC_MINISBLACK, samplesPerPixel: 1,
                                      samples: [0, 0], compression: COMPRESSION_NONE, sampleFormat: SAMPLEFORMAT_IEEEFP)
        let floatError = try #require(throws: WebImageError.self) { try decode(float) }
        #expect(floatError.code == .unsupportedFormat)
        #expect(floatError.message.contains("floating-point"), "\(floatError)")
        var wide = float
        wide.sampleFormat = SAMPLEFORMAT_UINT
        let wideError = try #require(throws: WebImageError.self) { try decode(wide) }
        #expect(wideError.code == .unsupportedFormat)
        #expect(wideError.message.contains("32-bit samples"), "\(wideError)")
    }

    /// An odd-depth image is checked against the decode limits before any row is read.
    @Test func oddDepthsAreCheckedAgainstTheLimits() throws {
        var page = TIFFFixtures.Page(width: 4, height: 4, bits: 12, photometric: PHOTOMETRIC_MINISBLACK, samplesPerPixel: 1,
                                     samples: [UInt16](repeating: 7, count: 16))
        page.compression = COMPRESSION_NONE
        let data = try TIFFFixtures.file([page])
        let options = DecodeOptions(limits: DecodeLimits(maxPixels: 8))
        let error = try #require(throws: WebImageError.self) { try coder.decode(data, options: options) }
        #expect(error.code == .imageTooLarge)
    }
}

extension Array {
    /// The elements in a fixed scrambled order (every 7th, wrapping), so neighbours differ.
    func shuffledDeterministically() -> [Element] {
        guard count > 1 else { return self }
        func gcd(_ a: Int, _ b: Int) -> Int { b == 0 ? a : gcd(b, a % b) }
        var step = 7
        while gcd(step, count) != 1 { step += 1 }
        return (0..<count).map { self[($0 * step) % count] }
    }
}
