import Foundation
import Testing
@testable import WebImageCodecs

/// Damaged or hostile JPEG XL input ends in a clear ``WebImageError``, never a crash or a hang,
/// and limits are checked from the header before any pixel memory is allocated.
@Suite("JPEG XL bad input")
struct JXLBadInputTests {
    let coder = JXLCoder()

    /// A bare codestream header declaring a `side`×`side` image with default metadata (8-bit
    /// sRGB), then `trailing` bytes of noise instead of any frame.
    static func header(side: Int, trailing: Int = 64) -> Data {
        var bits: [Bool] = []
        func put(_ value: Int, _ count: Int) { for i in 0..<count { bits.append(value >> i & 1 == 1) } }
        put(0, 1)             // not the small size form
        put(3, 2)             // height: 30 bits follow
        put(side - 1, 30)
        put(1, 3)             // width from the 1:1 ratio
        put(1, 1)             // all_default image metadata
        var bytes: [UInt8] = [0xFF, 0x0A]
        for start in stride(from: 0, to: bits.count, by: 8) {
            var byte: UInt8 = 0
            for (i, bit) in bits[start..<min(start + 8, bits.count)].enumerated() where bit { byte |= 1 << i }
            bytes.append(byte)
        }
        return Data(bytes) + TestBitmaps.noise(count: trailing, seed: UInt64(side))
    }

    /// The container fixture's boxes as (offset, size, type).
    static func boxes(_ data: Data) -> [(offset: Int, size: Int, type: String)] {
        let b = [UInt8](data)
        var result: [(Int, Int, String)] = []
        var offset = 0
        while offset + 8 <= b.count {
            let size = Int(b[offset]) << 24 | Int(b[offset + 1]) << 16 | Int(b[offset + 2]) << 8 | Int(b[offset + 3])
            result.append((offset, size, String(decoding: b[offset + 4..<offset + 8], as: UTF8.self)))
            guard size >= 8 else { break }
            offset += size
        }
        return result
    }

    @Test(arguments: ["still-lossy", "still-lossless", "alpha", "container", "animation"])
    func truncatedFilesFailCleanly(_ name: String) throws {
        let data = try CodecFixtures.data("jxl/\(name).jxl")
        // Every frame decoded now, so that a cut anywhere shows.
        let everyFrame = DecodeOptions(preloadsAllFrames: true)
        for length in [2, 5, 12, 20, 40, data.count / 2, data.count - 10, data.count - 1] {
            let error = CodecFixtures.error { try coder.decode(data.prefix(length), options: everyFrame) }
            #expect(error?.code == .badImageData, "\(name) cut at \(length): \(String(describing: error))")
            _ = coder.imageInfo(for: data.prefix(length)) // a header cut short: nil or a size, never a trap
        }
    }

    @Test func truncatedAnimationsFailOnTheFramesThatAreMissing() throws {
        let data = try CodecFixtures.data("jxl/animation.jxl")
        let cut = data.prefix(data.count - 20)
        // The frame headers are all there, so the animation opens; the last frame, decoded when
        // asked for, is missing its data, and the frames before it still decode.
        let lazy = try coder.decode(cut, options: .default)
        #expect(lazy.frameCount == 4)
        let error = CodecFixtures.error { try lazy.frame(at: 3) }
        #expect(error?.code == .badImageData)
        #expect(error?.message.contains("frame 4") == true, "\(String(describing: error))")
        let whole = try coder.decode(data, options: .default)
        #expect(try lazy.frame(at: 2).bitmap == whole.frame(at: 2).bitmap)
        #expect(CodecFixtures.errorCode { try coder.decode(cut, options: DecodeOptions(preloadsAllFrames: true)) } == .badImageData)
        #expect(try coder.decode(cut, options: DecodeOptions(firstFrameOnly: true)).bitmap == whole.bitmap)
    }

    @Test func unknownBoxesAreSkipped() throws {
        let data = try CodecFixtures.data("jxl/container.jxl")
        let codestream = try #require(Self.boxes(data).first { $0.type == "jxlc" })
        let junk = Data([0, 0, 0, 24] + Array("junk".utf8)) + TestBitmaps.noise(count: 16, seed: 1)
        let padded = data.prefix(codestream.offset) + junk + data.dropFirst(codestream.offset)
        let image = try coder.decode(padded, options: .default)
        #expect(image.bitmap == (try coder.decode(data, options: .default)).bitmap)
    }

    @Test func brokenBoxesAreRefused() throws {
        let data = try CodecFixtures.data("jxl/container.jxl")
        let codestream = try #require(Self.boxes(data).first { $0.type == "jxlc" })
        var cases: [(String, Data)] = []
        // The codestream box renamed: a container without a codestream.
        var renamed = data
        renamed.replaceSubrange(codestream.offset + 4..<codestream.offset + 8, with: Array("zzzz".utf8))
        cases.append(("no codestream box", renamed))
        // A box size smaller than a box header.
        var tiny = data
        tiny.replaceSubrange(codestream.offset..<codestream.offset + 4, with: [0, 0, 0, 3])
        cases.append(("box size 3", tiny))
        // Noise where the codestream starts.
        var noisy = data
        noisy.replaceSubrange(codestream.offset + 8..<codestream.offset + 40, with: TestBitmaps.noise(count: 32, seed: 4))
        cases.append(("noise codestream", noisy))
        for (name, bytes) in cases {
            let error = CodecFixtures.error { try coder.decode(bytes, options: .default) }
            #expect(error?.code == .badImageData, "\(name): \(String(describing: error))")
        }
    }

    @Test func aLastBoxLongerThanTheFileIsReadToTheEnd() throws {
        // libjxl reads the codestream box to the end of the data it has: the image is whole.
        let data = try CodecFixtures.data("jxl/container.jxl")
        let codestream = try #require(Self.boxes(data).first { $0.type == "jxlc" })
        var long = data
        long.replaceSubrange(codestream.offset..<codestream.offset + 4, with: [0x7F, 0xFF, 0xFF, 0xFF])
        #expect(try coder.decode(long, options: .default).bitmap == coder.decode(data, options: .default).bitmap)
    }

    @Test func sizesOverTheLimitAreRefusedFromTheHeader() throws {
        // 20000 × 20000 declared, nothing behind it: refused as too large, not as damaged, so the
        // check ran on the header before libjxl looked for pixels.
        let huge = Self.header(side: 20_000)
        let error = CodecFixtures.error { try coder.decode(huge, options: .default) }
        #expect(error?.code == .imageTooLarge, "\(String(describing: error))")
        #expect(error?.message.contains("20000x20000") == true, "\(String(describing: error))")
        #expect(coder.imageInfo(for: huge)?.pixelSize == PixelSize(width: 20_000, height: 20_000))
        // A thumbnail cannot help: libjxl has no reduced-size decode.
        let thumbnail = DecodeOptions(thumbnailPixelSize: PixelSize(width: 64, height: 64))
        #expect(CodecFixtures.errorCode { try coder.decode(huge, options: thumbnail) } == .imageTooLarge)

        let data = try CodecFixtures.data("jxl/still-lossy.jxl")
        let limits = DecodeLimits(maxPixels: 64 * 48 - 1)
        #expect(CodecFixtures.errorCode { try coder.decode(data, options: DecodeOptions(limits: limits)) } == .imageTooLarge)
        #expect(try coder.decode(data, options: DecodeOptions(limits: DecodeLimits(maxPixels: 64 * 48))).pixelSize
            == PixelSize(width: 64, height: 48))
    }

    @Test func garbageAfterTheSignatureIsRefused() throws {
        for seed in 0..<12 {
            let noise = TestBitmaps.noise(count: 16 + seed * 60, seed: UInt64(seed))
            let codestream = Data([0xFF, 0x0A]) + noise
            let container = Data([0, 0, 0, 0x0C, 0x4A, 0x58, 0x4C, 0x20, 0x0D, 0x0A, 0x87, 0x0A]) + noise
            for data in [codestream, container] {
                #expect(ImageFormat.detect(data) == .jpegXL)
                let error = CodecFixtures.error { try coder.decode(data, options: .default) }
                #expect(error?.code == .badImageData || error?.code == .imageTooLarge, "\(String(describing: error))")
            }
        }
        #expect(CodecFixtures.errorCode { try coder.decode(Data(), options: .default) } == .badImageData)
        #expect(CodecFixtures.errorCode { try coder.decode(Data([0xFF, 0x0A]), options: .default) } == .badImageData)
    }

    @Test func otherFormatsAreNotClaimed() throws {
        let avif = try CodecFixtures.data("avif/still-8bit.avif")
        #expect(!coder.canDecode(avif))
        #expect(CodecFixtures.errorCode { try coder.decode(avif, options: .default) } == .badImageData)
    }

    @Test func fuzzInvariantsHoldOnEveryFixturePrefix() throws {
        for name in ["alpha", "animation", "container"] {
            let data = try CodecFixtures.data("jxl/\(name).jxl")
            for length in stride(from: 0, through: data.count, by: 41) {
                for options in FuzzReplay.optionSets {
                    FuzzReplay.decode(data.prefix(length), with: coder, options: options, formats: [.jpegXL])
                }
            }
        }
    }
}
