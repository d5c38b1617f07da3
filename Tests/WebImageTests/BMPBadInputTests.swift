import Foundation
import Testing
@testable import WebImageCodecs

/// Damaged or hostile BMP input ends in a clear ``WebImageError``: sizes are checked from the
/// header before gdk-pixbuf allocates anything.
@Suite("BMP bad input")
struct BMPBadInputTests {
    let coder = BMPCoder()

    func patched(width: Int32? = nil, height: Int32? = nil) throws -> Data {
        var bytes = [UInt8](try CodecFixtures.data("bmp/rgb24.bmp"))
        if let width { DIBHeaderBytes.put(UInt32(bitPattern: width), into: &bytes, at: 18) }
        if let height { DIBHeaderBytes.put(UInt32(bitPattern: height), into: &bytes, at: 22) }
        return Data(bytes)
    }

    @Test func hugeHeightsAreRefusedFromTheHeader() throws {
        for height in [Int32.max, -Int32.max, 4_000_000] {
            let error = CodecFixtures.error { try coder.decode(try patched(height: height), options: .default) }
            #expect(error?.code == .imageTooLarge, "\(height): \(String(describing: error))")
        }
    }

    @Test func impossibleSizesAreRefused() throws {
        for (width, height) in [(Int32(48), Int32.min), (48, 0), (-48, 32), (0, 32)] {
            let error = CodecFixtures.error { try coder.decode(try patched(width: width, height: height), options: .default) }
            #expect(error?.code == .badImageData, "\(width)x\(height): \(String(describing: error))")
        }
    }

    @Test func aPaletteLargerThanTheDepthAllowsIsRefused() throws {
        // Found by fuzzing: gdk-pixbuf's BMP loader reads a biClrUsed of 0xB5B4B4B4 as a negative
        // count and asks for a 3.6 GB buffer; the header check refuses it first.
        var bytes = [UInt8](try CodecFixtures.data("bmp/mono1.bmp"))
        DIBHeaderBytes.put(0xB5B4_B4B4, into: &bytes, at: 14 + 32)
        let error = CodecFixtures.error { try coder.decode(Data(bytes), options: .default) }
        #expect(error?.code == .badImageData, "\(String(describing: error))")
        #expect(error?.message.contains("palette") == true)
    }

    @Test func aHeightLargerThanTheDataFailsCleanly() throws {
        // Within the limits, but the rows are not there.
        let error = CodecFixtures.error { try coder.decode(try patched(height: 2_000), options: .default) }
        #expect(error?.code == .badImageData, "\(String(describing: error))")
    }

    @Test(arguments: ["rgb24", "palette8", "mono1", "rgba32"])
    func truncatedFilesFailCleanly(_ name: String) throws {
        let data = try CodecFixtures.data("bmp/\(name).bmp")
        for length in [2, 14, 20, 30, 54, 100, data.count / 2, data.count - 1] where length < data.count {
            let error = CodecFixtures.error { try coder.decode(data.prefix(length), options: .default) }
            #expect(error?.code == .badImageData, "\(name) cut to \(length): \(String(describing: error))")
        }
    }

    @Test func garbageAfterAValidHeaderFailsCleanly() throws {
        let header = [UInt8](try CodecFixtures.data("bmp/rgb24.bmp").prefix(54))
        for seed in 0..<8 {
            let data = Data(header) + TestBitmaps.noise(count: 20 + seed * 31, seed: UInt64(seed))
            #expect(CodecFixtures.errorCode { try coder.decode(data, options: .default) } == .badImageData, "seed \(seed)")
        }
        var noise = [UInt8](TestBitmaps.noise(count: 300, seed: 99))
        noise[0] = 0x42; noise[1] = 0x4D
        _ = try? coder.decode(Data(noise), options: .default) // sniffed or not: never a trap
    }

    @Test func fuzzInvariantsHoldOnEveryFixturePrefix() throws {
        let data = try CodecFixtures.data("bmp/palette8.bmp")
        for length in stride(from: 0, through: data.count, by: 23) {
            for options in FuzzReplay.optionSets {
                FuzzReplay.decode(data.prefix(length), with: coder, options: options, formats: [.bmp])
            }
        }
    }
}
