import Foundation
import Testing
@testable import WebImage
@testable import WebImageCodecs

/// The CLI names AVIF, HEIC and HEIF sources by format, and writes AVIF on request.
@Suite("CLI AVIF and HEIF")
struct CLIAVIFHEIFTests {
    @Test func decodeReportsTheFormats() async throws {
        let files = ["avif/still-8bit.avif": "avif", "avif/sequence.avif": "avif",
                     "heif/still.heic": "heic", "heif/mif1-only.heif": "heif"]
        let paths = files.keys.sorted()
        let run = try await CLIProcess.run(["decode", "--json"] + paths.map { CodecFixtures.root.appendingPathComponent($0).path })
        #expect(run.status == 0, "\(run.stderr)")
        for (index, path) in paths.enumerated() {
            let line = try run.object(index)
            #expect(line["format"] as? String == files[path], "\(path)")
            #expect(line["frames"] as? Int == (path == "avif/sequence.avif" ? 3 : 1), "\(path)")
        }
    }

    @Test func getWritesAVIFByFormatOrByName() async throws {
        let dir = try CLIProcess.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let png = try CLIProcess.pngFixture()
        try await withTestOrigin { origin in
            origin.setRoute("/a.png", .data(png, contentType: "image/png"))
            let a = origin.url("/a.png").absoluteString
            let cache = dir.appendingPathComponent("cache").path

            let named = dir.appendingPathComponent("x.avif").path
            let byName = try await CLIProcess.run(["get", a, "--cache-dir", cache, "-o", named, "--json"])
            #expect(byName.status == 0, "\(byName.stderr)")
            let written = try Data(contentsOf: URL(fileURLWithPath: named))
            #expect(ImageFormat.detect(written) == .avif)
            #expect(TestBitmaps.isUprightQuadrants(try AVIFCoder().decode(written, options: .default).bitmap))

            let other = dir.appendingPathComponent("y").path
            let byFormat = try await CLIProcess.run(["get", a, "--cache-dir", cache, "-o", other, "--format", "avif", "--json"])
            #expect(byFormat.status == 0, "\(byFormat.stderr)")
            let path = try #require(try byFormat.object(0)["output"] as? String)
            #expect(ImageFormat.detect(try Data(contentsOf: URL(fileURLWithPath: path))) == .avif)

            let heic = dir.appendingPathComponent("z.heic").path
            let refused = try await CLIProcess.run(["get", a, "--cache-dir", cache, "-o", heic, "--json"])
            #expect(refused.status != 0)
            #expect(refused.stderr.contains(".avif"))
        }
    }

    @Test func getWritesAnAnimatedGIFAsAnAVIFSequence() async throws {
        let dir = try CLIProcess.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let gif = try ServerAnimatedAVIFTests.encoded(as: .gif)
        try await withTestOrigin { origin in
            origin.setRoute("/anim.gif", .data(gif, contentType: "image/gif"))
            let output = dir.appendingPathComponent("anim.avif").path
            let run = try await CLIProcess.run(["get", origin.url("/anim.gif").absoluteString,
                                                "--cache-dir", dir.appendingPathComponent("cache").path, "-o", output])
            #expect(run.status == 0, "\(run.stderr)")
            let image = try AVIFCoder().decode(try Data(contentsOf: URL(fileURLWithPath: output)), options: .default)
            #expect(image.frameCount == 3)
            #expect((0..<image.frameCount).map(image.frameDuration(at:)) == ServerAnimatedAVIFTests.durations)
            #expect(AVIFAnimationEncodingTests.isClose(try image.frame(at: 2).bitmap.pixel(x: 60, y: 40),
                                                       ServerAnimatedAVIFTests.colours[2]))
        }
    }
}
