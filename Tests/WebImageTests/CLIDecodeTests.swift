import Foundation
import Testing
@testable import WebImage
@testable import WebImageCodecs
@testable import WebImageLoading

@Suite("CLI decode")
struct CLIDecodeTests {
    /// Runs the built `webimage` with `arguments`; returns its exit status and stdout lines. The
    /// child is read and awaited off the cooperative pool, which the tests running beside this one
    /// need.
    func run(_ arguments: [String]) async throws -> (status: Int32, lines: [String]) {
        let executable = try #require(webimageExecutable(), "build the webimage executable (swift build) first")
        let child = try ChildProcess(executable.path, arguments, stdout: .pipe)
        let (output, status) = await offThePool { (child.readStdout(), child.wait().status) }
        return (status, String(decoding: output, as: UTF8.self).split(separator: "\n").map(String.init))
    }

    func object(_ line: String) throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
    }

    @Test func jsonLinePerFileAndExitStatus() async throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("webimage-cli-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let png = dir.appendingPathComponent("a.png")
        try CodersManager.shared.encode(Image(bitmap: TestBitmaps.gradient(width: 40, height: 30, alpha: true)),
                                        as: .png, options: .default).write(to: png)
        let frames = (0..<3).map { _ in ImageFrame(bitmap: TestBitmaps.quadrants(width: 16, height: 16), duration: 0.2) }
        let gif = dir.appendingPathComponent("b.gif")
        try CodersManager.shared.encode(Image(frames: frames, loopCount: 0), as: .gif, options: .default).write(to: gif)
        let bad = dir.appendingPathComponent("c.bin")
        try Data("not an image at all".utf8).write(to: bad)

        let all = try await run(["decode", png.path, gif.path, bad.path, "--json"])
        #expect(all.status == 1)
        #expect(all.lines.count == 3)
        let first = try object(all.lines[0])
        #expect(first["ok"] as? Bool == true)
        #expect(first["format"] as? String == "png")
        #expect(first["width"] as? Int == 40 && first["height"] as? Int == 30)
        #expect(first["frames"] as? Int == 1)
        let second = try object(all.lines[1])
        #expect(second["format"] as? String == "gif")
        #expect(second["frames"] as? Int == 3)
        // One loop's length from the frame headers: three frames of 0.2 s.
        #expect(abs((second["duration"] as? Double ?? 0) - 0.6) < 1e-9)
        #expect(second["loopCount"] as? Int == 0)
        let third = try object(all.lines[2])
        #expect(third["ok"] as? Bool == false)
        let error = try #require(third["error"] as? [String: Any])
        #expect(error["code"] as? Int == 1001)
        #expect(error["name"] as? String == "badImageData")

        let good = try await run(["decode", png.path, "--json", "--thumbnail", "20x20"])
        #expect(good.status == 0)
        let thumb = try object(try #require(good.lines.first))
        #expect(thumb["width"] as? Int == 20 && thumb["height"] as? Int == 15)
    }

    @Test func firstFrameDecodesOneFrameOfAnAnimation() async throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("webimage-cli-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let colors = [TestBitmaps.red, TestBitmaps.green, TestBitmaps.blue]
        let frames = colors.map { ImageFrame(bitmap: Bitmap(width: 12, height: 8, fill: $0), duration: 0.2) }
        let gif = dir.appendingPathComponent("three.gif")
        try CodersManager.shared.encode(Image(frames: frames, loopCount: 0), as: .gif, options: .default).write(to: gif)

        let all = try await run(["decode", gif.path, "--json"])
        #expect(all.status == 0)
        #expect(try object(try #require(all.lines.first))["frames"] as? Int == 3)
        let first = try await run(["decode", gif.path, "--first-frame", "--json"])
        #expect(first.status == 0)
        let still = try object(try #require(first.lines.first))
        #expect(still["frames"] as? Int == 1)
        #expect(still["format"] as? String == "gif")
        #expect(still["width"] as? Int == 12 && still["height"] as? Int == 8)
    }

    @Test func decodeBenchTimesThumbnailDecodes() async throws {
        // A HEIC with an embedded thumbnail item (the decode-bench thumbnail case of the codec
        // benchmark) and a PNG, decoded to fit 16x16: one JSON line counting every decode.
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("webimage-cli-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        try CodecFixtures.data("heif/thumbnail.heic").write(to: dir.appendingPathComponent("a.heic"))
        try CodersManager.shared.encode(Image(bitmap: TestBitmaps.gradient(width: 40, height: 30, alpha: false)),
                                        as: .png, options: .default).write(to: dir.appendingPathComponent("b.png"))
        let result = try await run(["decode-bench", dir.path, "--reps", "3", "--thumbnail", "16"])
        #expect(result.status == 0)
        let line = try object(try #require(result.lines.first))
        #expect(line["thumbnail"] as? Int == 16)
        #expect(line["files"] as? Int == 2 && line["reps"] as? Int == 3 && line["images"] as? Int == 6)
        #expect((line["ms_per_image"] as? Double ?? 0) > 0)

        let refused = try await run(["decode-bench", dir.path, "--thumbnail", "0"])
        #expect(refused.status != 0)

        let area = try await run(["decode-bench", dir.path, "--reps", "1", "--thumbnail", "16", "--filter", "area"])
        #expect(area.status == 0)
        #expect(try object(try #require(area.lines.first))["filter"] as? String == "area")
        let unknown = try await run(["decode-bench", dir.path, "--filter", "box"])
        #expect(unknown.status != 0)
    }
}
