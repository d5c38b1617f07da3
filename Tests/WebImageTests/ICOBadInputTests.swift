import Foundation
import Testing
@testable import WebImageCodecs

/// Damaged or hostile ICO input: the directory is checked before any entry is decoded, entries
/// pointing outside the file are skipped, and a file with none usable is a clear error.
@Suite("ICO bad input")
struct ICOBadInputTests {
    let coder = ICOCoder()

    func fixture() throws -> [UInt8] { [UInt8](try CodecFixtures.data("ico/bmp-entries.ico")) }

    /// Entry `index`'s offset field (bytes 12…15 of its 16-byte record).
    func offsetField(_ index: Int) -> Int { 6 + 16 * index + 12 }

    @Test func zeroEntriesIsAnError() throws {
        var bytes = try fixture()
        bytes[4] = 0; bytes[5] = 0
        let error = CodecFixtures.error { try bytes.withUnsafeBufferPointer { try ICODecoder.decode($0, options: .default) } }
        #expect(error?.code == .badImageData)
        #expect(error?.message.contains("no images") == true, "\(String(describing: error))")
        #expect(ImageFormat.detect(Data(bytes)) == .undefined)
    }

    @Test func anEntryOutsideTheFileIsSkipped() throws {
        var bytes = try fixture()
        // The 48-pixel entry (the third) now points past the end: the 32-pixel one is the largest left.
        DIBHeaderBytes.put(UInt32(bytes.count - 10), into: &bytes, at: offsetField(2))
        let image = try coder.decode(Data(bytes), options: .default)
        #expect(image.pixelSize == PixelSize(width: 32, height: 32))
    }

    @Test func aDirectoryPointingOnlyOutsideTheFileIsAnError() throws {
        var bytes = try fixture()
        for i in 0..<3 { DIBHeaderBytes.put(0xFFFF_FF00, into: &bytes, at: offsetField(i)) }
        let error = CodecFixtures.error { try coder.decode(Data(bytes), options: .default) }
        #expect(error?.code == .badImageData)
        #expect(error?.message.contains("outside") == true, "\(String(describing: error))")
    }

    @Test func impossibleBitmapHeadersAreSkippedNotHandedToGdkPixbuf() throws {
        // gdk-pixbuf's ICO loader asserts on a width of Int32.min; such an entry never reaches it.
        var bytes = try fixture()
        let third = Int(DIBHeaderBytes.u32(bytes, offsetField(2)))
        DIBHeaderBytes.put(0x8000_0000, into: &bytes, at: third + 4)
        #expect(try coder.decode(Data(bytes), options: .default).pixelSize == PixelSize(width: 32, height: 32))
        for i in 0..<3 {
            let at = Int(DIBHeaderBytes.u32(bytes, offsetField(i)))
            DIBHeaderBytes.put(0x8000_0000, into: &bytes, at: at + 4)
        }
        #expect(CodecFixtures.errorCode { try coder.decode(Data(bytes), options: .default) } == .badImageData)
    }

    @Test func largeEntriesAreRefusedOrSkippedByTheLimits() throws {
        let data = try CodecFixtures.data("ico/png-entries.ico")
        let limits = DecodeLimits(maxPixels: 32 * 32)
        #expect(CodecFixtures.errorCode { try coder.decode(data, options: DecodeOptions(limits: limits)) } == .imageTooLarge)
        let thumbnail = DecodeOptions(thumbnailPixelSize: PixelSize(width: 40, height: 40), limits: limits)
        #expect(try coder.decode(data, options: thumbnail).pixelSize == PixelSize(width: 32, height: 32))
    }

    @Test(arguments: ["bmp-entries", "png-entries"])
    func truncatedFilesFailCleanly(_ name: String) throws {
        let data = try CodecFixtures.data("ico/\(name).ico")
        for length in [4, 6, 21, 30, 60, data.count / 3, data.count / 2, data.count - 1] where length < data.count {
            let prefix = data.prefix(length)
            do {
                // Entries cut off are skipped: a smaller whole entry may still decode.
                let image = try coder.decode(prefix, options: .default)
                #expect(image.pixelSize.width < 48, "\(name) cut to \(length)")
            } catch let error as WebImageError {
                #expect(error.code == .badImageData, "\(name) cut to \(length): \(error)")
            }
        }
    }

    @Test func garbageAfterAValidDirectoryFailsCleanly() throws {
        let directory = [UInt8](try fixture().prefix(6 + 16 * 3))
        for seed in 0..<8 {
            var bytes = directory + [UInt8](TestBitmaps.noise(count: 20_000, seed: UInt64(seed)))
            // Keep a plausible bitmap header at each entry so the noise reaches gdk-pixbuf.
            for i in 0..<3 {
                let at = Int(DIBHeaderBytes.u32(bytes, offsetField(i)))
                guard at + 40 <= bytes.count else { continue }
                bytes.replaceSubrange(at..<at + 20, with: [40, 0, 0, 0, 16, 0, 0, 0, 32, 0, 0, 0, 1, 0, 8, 0, 0, 0, 0, 0])
            }
            _ = CodecFixtures.error { try coder.decode(Data(bytes), options: .default) }
        }
    }

    @Test func fuzzInvariantsHoldOnEveryFixturePrefix() throws {
        let data = try CodecFixtures.data("ico/png-entries.ico")
        for length in stride(from: 0, through: data.count, by: 7) {
            for options in FuzzReplay.optionSets {
                FuzzReplay.decode(data.prefix(length), with: coder, options: options, formats: [.ico])
            }
        }
    }
}
