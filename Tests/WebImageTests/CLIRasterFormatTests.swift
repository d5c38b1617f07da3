import Foundation
import Testing
@testable import WebImage
@testable import WebImageCodecs

/// The CLI names TIFF, BMP and ICO sources by format, reports a TIFF's colour profile, and
/// writes TIFF on request.
@Suite("CLI TIFF, BMP and ICO")
struct CLIRasterFormatTests {
    @Test func decodeReportsTheFormats() async throws {
        let files = ["tiff/rgb8.tif": "tiff", "tiff/pyramid-subifd.tif": "tiff", "bmp/rgb24.bmp": "bmp",
                     "ico/png-entries.ico": "ico", "ico/bmp-entries.ico": "ico"]
        let paths = files.keys.sorted()
        let run = try await CLIProcess.run(["decode", "--json"] + paths.map { CodecFixtures.root.appendingPathComponent($0).path })
        #expect(run.status == 0, "\(run.stderr)")
        for (index, path) in paths.enumerated() {
            let line = try run.object(index)
            #expect(line["format"] as? String == files[path], "\(path)")
            #expect(line["frames"] as? Int == 1)
            #expect(line["colorProfile"] is NSNull, "\(path)")
        }
    }

    @Test func decodeReportsATIFFsProfile() async throws {
        let dir = try CLIProcess.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        var page = TIFFFixtures.Page.solid(8, 8, ColorFixtures.patch)
        page.icc = ColorFixtures.displayP3
        let path = dir.appendingPathComponent("p3.tif").path
        try TIFFFixtures.file([page]).write(to: URL(fileURLWithPath: path))
        let run = try await CLIProcess.run(["decode", "--json", path])
        #expect(run.status == 0, "\(run.stderr)")
        let line = try run.object(0)
        #expect(line["format"] as? String == "tiff")
        #expect(line["colorProfile"] as? String == "Test Display P3")
    }

    @Test func getWritesTIFFByFormatOrByName() async throws {
        let (png, written) = try await CLIGetFormatCheck.run(extension: "tiff", formatName: "tiff", expecting: .tiff)
        let source = try PNGCoder().decode(Data(png), options: .default).bitmap
        #expect(try TIFFCoder().decode(written, options: .default).bitmap == source)
    }
}
