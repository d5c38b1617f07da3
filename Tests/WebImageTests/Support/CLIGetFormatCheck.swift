import Foundation
import Testing
@testable import WebImage

/// `webimage get` writing one output format, checked both ways a user asks for it: by the `-o`
/// file's extension and by `--format` with a name that has none.
enum CLIGetFormatCheck {
    /// Serves the quadrant PNG fixture, runs `get … -o x.<ext>` and `get … -o y --format <name>`,
    /// expects both files to be `format`, and returns the source PNG and the file written by
    /// extension so the caller can check its pixels.
    static func run(extension ext: String, formatName: String,
                    expecting format: ImageFormat) async throws -> (png: [UInt8], byName: Data) {
        let dir = try CLIProcess.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let png = try CLIProcess.pngFixture()
        return try await withTestOrigin { origin in
            origin.setRoute("/a.png", .data(png, contentType: "image/png"))
            let a = origin.url("/a.png").absoluteString
            let cache = dir.appendingPathComponent("cache").path

            let named = dir.appendingPathComponent("x.\(ext)").path
            let byName = try await CLIProcess.run(["get", a, "--cache-dir", cache, "-o", named, "--json"])
            #expect(byName.status == 0, "\(byName.stderr)")
            let written = try Data(contentsOf: URL(fileURLWithPath: named))
            #expect(ImageFormat.detect(written) == format)

            let other = dir.appendingPathComponent("y").path
            let byFormat = try await CLIProcess.run(["get", a, "--cache-dir", cache, "-o", other, "--format", formatName, "--json"])
            #expect(byFormat.status == 0, "\(byFormat.stderr)")
            let path = try #require(try byFormat.object(0)["output"] as? String)
            #expect(ImageFormat.detect(try Data(contentsOf: URL(fileURLWithPath: path))) == format)
            return (png, written)
        }
    }
}
