import Foundation
import Testing
@testable import WebImage
@testable import WebImageCodecs

/// The CLI names JPEG XL sources and their colour profile, and writes JPEG XL on request.
@Suite("CLI JPEG XL")
struct CLIJXLTests {
    @Test func decodeReportsTheFormatFramesAndProfile() async throws {
        let dir = try CLIProcess.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        var settings = JXLFixtures.Settings()
        settings.icc = ColorFixtures.displayP3
        let tagged = dir.appendingPathComponent("p3.jxl")
        try JXLFixtures.still(ColorFixtures.solid(), settings).write(to: tagged)
        let paths = [CodecFixtures.root.appendingPathComponent("jxl/still-lossy.jxl").path,
                     CodecFixtures.root.appendingPathComponent("jxl/animation.jxl").path, tagged.path]
        let run = try await CLIProcess.run(["decode", "--json"] + paths)
        #expect(run.status == 0, "\(run.stderr)")
        let lines = try (0..<3).map { try run.object($0) }
        #expect(lines.allSatisfy { $0["format"] as? String == "jxl" })
        #expect(lines.map { $0["frames"] as? Int } == [1, 4, 1])
        #expect(lines[0]["colorProfile"] as? String == "sRGB")
        #expect(lines[2]["colorProfile"] as? String == "Test Display P3")
    }

    @Test func getWritesJPEGXLByFormatOrByName() async throws {
        let written = try await CLIGetFormatCheck.run(extension: "jxl", formatName: "jxl", expecting: .jpegXL).byName
        #expect(TestBitmaps.isUprightQuadrants(try JXLCoder().decode(written, options: .default).bitmap))
    }
}
