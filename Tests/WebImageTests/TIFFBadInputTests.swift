import Foundation
import Testing
@testable import WebImageCodecs

/// Damaged or hostile TIFF input ends in a clear ``WebImageError`` with what libtiff said, never a
/// crash, a hang or a message on stderr; sizes and strip counts are refused from the header.
@Suite("TIFF bad input")
struct TIFFBadInputTests {
    let coder = TIFFCoder()

    /// A little-endian classic TIFF: the header, then one directory at offset 8 of `entries`
    /// (tag, type, count, value), sorted, with no next directory.
    static func handMade(_ entries: [(UInt16, UInt16, UInt32, UInt32)], trailing: [UInt8] = []) -> Data {
        var bytes: [UInt8] = [0x49, 0x49, 42, 0, 8, 0, 0, 0]
        func u16(_ v: UInt16) { bytes += [UInt8(v & 0xFF), UInt8(v >> 8)] }
        func u32(_ v: UInt32) { bytes += (0..<4).map { UInt8((v >> (8 * $0)) & 0xFF) } }
        u16(UInt16(entries.count))
        for (tag, type, count, value) in entries.sorted(by: { $0.0 < $1.0 }) {
            u16(tag); u16(type); u32(count)
            if type == 3, count == 1 { u16(UInt16(value)); u16(0) } else { u32(value) }
        }
        u32(0)
        return Data(bytes + trailing)
    }

    /// A gray 8-bit image of `width`×`height` in strips of `rowsPerStrip` rows, whose strip
    /// arrays (if more than one strip) point at offset 8.
    static func gray(width: UInt32, height: UInt32, rowsPerStrip: UInt32) -> Data {
        let strips = (height + rowsPerStrip - 1) / rowsPerStrip
        return handMade([(256, 4, 1, width), (257, 4, 1, height), (258, 3, 1, 8), (259, 3, 1, 1), (262, 3, 1, 1),
                         (273, 4, strips, 8), (277, 3, 1, 1), (278, 4, 1, rowsPerStrip), (279, 4, strips, 8)],
                        trailing: [UInt8](repeating: 0x40, count: 64))
    }

    @Test func hugeDimensionsAreRefusedFromTheHeader() throws {
        let data = Self.gray(width: 200_000, height: 200_000, rowsPerStrip: 200_000)
        let error = CodecFixtures.error { try coder.decode(data, options: .default) }
        #expect(error?.code == .imageTooLarge, "\(String(describing: error))")
        #expect(error?.message.contains("200000x200000") == true, "\(String(describing: error))")
        // The header still reads: a server can refuse it without decoding.
        #expect(coder.imageInfo(for: data)?.pixelSize == PixelSize(width: 200_000, height: 200_000))
        // A thumbnail cannot help without a reduced-resolution image.
        let thumbnail = DecodeOptions(thumbnailPixelSize: PixelSize(width: 64, height: 64))
        #expect(CodecFixtures.errorCode { try coder.decode(data, options: thumbnail) } == .imageTooLarge)
    }

    @Test func absurdStripCountsAreRefusedFromTheHeader() throws {
        // 1 × 1,000,000 pixels in one-row strips: a million strip offsets cannot fit in 200 bytes.
        let data = Self.gray(width: 1, height: 1_000_000, rowsPerStrip: 1)
        let error = CodecFixtures.error { try coder.decode(data, options: .default) }
        #expect(error?.code == .badImageData, "\(String(describing: error))")
        #expect(error?.message.contains("1000000 strips") == true, "\(String(describing: error))")
    }

    @Test func absurdTileSizesAreRefused() throws {
        let data = Self.handMade([(256, 4, 1, 16), (257, 4, 1, 16), (258, 3, 1, 8), (259, 3, 1, 1), (262, 3, 1, 1),
                                  (277, 3, 1, 1), (322, 4, 1, 1 << 20), (323, 4, 1, 1 << 20), (324, 4, 1, 8), (325, 4, 1, 64)],
                                 trailing: [UInt8](repeating: 0, count: 64))
        let error = CodecFixtures.error { try coder.decode(data, options: .default) }
        #expect(error?.code == .badImageData, "\(String(describing: error))")
    }

    @Test(arguments: ["rgb8", "rgb8-tiled", "rgb8-planar", "ycbcr-jpeg"])
    func truncatedFilesFailCleanly(_ name: String) throws {
        let data = try CodecFixtures.data("tiff/\(name).tif")
        for length in [8, 9, 20, 64, data.count / 3, data.count / 2, data.count - 200, data.count - 40, data.count - 1]
        where length > 0 && length < data.count {
            let error = CodecFixtures.error { try coder.decode(data.prefix(length), options: .default) }
            #expect(error?.code == .badImageData, "\(name) cut to \(length): \(String(describing: error))")
            #expect(error?.message.isEmpty == false)
            _ = coder.imageInfo(for: data.prefix(length))
        }
    }

    @Test func garbageAfterAValidMagicFailsCleanly() throws {
        for seed in 0..<12 {
            let data = Data([0x49, 0x49, 42, 0, 8, 0, 0, 0]) + TestBitmaps.noise(count: 40 + seed * 53, seed: UInt64(seed))
            #expect(ImageFormat.detect(data) == .tiff)
            let error = CodecFixtures.error { try coder.decode(data, options: .default) }
            #expect(error != nil, "seed \(seed)")
        }
        let noDirectory = Data([0x4D, 0x4D, 0, 42, 0, 0, 0x10, 0])
        #expect(CodecFixtures.errorCode { try coder.decode(noDirectory, options: .default) } == .badImageData)
    }

    @Test func libtiffsMessageIsInTheError() throws {
        let data = try CodecFixtures.data("tiff/rgb8.tif")
        let error = CodecFixtures.error { try coder.decode(data.prefix(data.count / 2), options: .default) }
        #expect(error?.message.contains("libtiff") == true, "\(String(describing: error))")
    }

    @Test func otherFormatsAndEmptyDataAreRefused() throws {
        #expect(CodecFixtures.errorCode { try coder.decode(Data(), options: .default) } == .badImageData)
        #expect(CodecFixtures.errorCode { try coder.decode(try CodecFixtures.data("bmp/rgb24.bmp"), options: .default) } == .badImageData)
        #expect(coder.imageInfo(for: Data("II*".utf8)) == nil)
    }

    @Test func fuzzInvariantsHoldOnEveryFixturePrefix() throws {
        for name in ["rgba8", "rgb8-tiled-planar"] {
            let data = try CodecFixtures.data("tiff/\(name).tif")
            for length in stride(from: 0, through: data.count, by: 41) {
                for options in FuzzReplay.optionSets {
                    FuzzReplay.decode(data.prefix(length), with: coder, options: options, formats: [.tiff])
                }
            }
        }
    }

    /// libtiff's warnings and errors reach the caller in the error, not the process's stderr.
    @Test func nothingIsPrintedToStderr() async throws {
        let dir = try CLIProcess.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let data = try CodecFixtures.data("tiff/rgb8.tif")
        let path = dir.appendingPathComponent("cut.tif").path
        try data.prefix(data.count / 2).write(to: URL(fileURLWithPath: path))
        let run = try await CLIProcess.run(["decode", path])
        #expect(run.status != 0)
        let lines = run.stderr.split(separator: "\n")
        #expect(lines.count == 1 && lines.first?.hasPrefix(path) == true, "stderr: \(run.stderr)")
    }
}
