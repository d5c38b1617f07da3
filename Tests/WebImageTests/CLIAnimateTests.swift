import Foundation
import Testing
import WebImage

@Suite("CLI animate")
struct CLIAnimateTests {
    /// A scratch folder with a 4-frame GIF (frame i in colour i) and a PNG.
    struct Files {
        let dir: URL
        var gif: URL { dir.appendingPathComponent("four.gif") }
        var png: URL { dir.appendingPathComponent("still.png") }

        init() throws {
            dir = FileManager.default.temporaryDirectory.appendingPathComponent("webimage-animate-\(UUID().uuidString)")
            try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
            let colors = [TestBitmaps.red, TestBitmaps.green, TestBitmaps.blue, RGBA.white]
            let frames = colors.map { ImageFrame(bitmap: Bitmap(width: 8, height: 6, fill: $0), duration: 0.05) }
            try CodersManager.shared.encode(Image(frames: frames, loopCount: 0), as: .gif, options: .default).write(to: gif)
            try CodersManager.shared.encode(Image(bitmap: Bitmap(width: 5, height: 5, fill: TestBitmaps.red)),
                                            as: .png, options: .default).write(to: png)
        }

        func remove() { try? FileManager.default.removeItem(at: dir) }
    }

    func report(_ run: CLIRun) throws -> [String: Any] {
        let line = try #require(run.stdout.split(separator: "\n").first.map(String.init), "no output: \(run.stderr)")
        return try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
    }

    @Test func playsEveryFrameOfEveryLoopAndReports() async throws {
        let files = try Files()
        defer { files.remove() }
        let run = try await CLIProcess.run(["animate", files.gif.path, "--loops", "2", "--json"])
        #expect(run.status == 0, "\(run.stderr)")
        let report = try report(run)
        #expect(report["frames"] as? Int == 4)
        #expect(report["shown"] as? Int == 8)
        #expect(report["dropped"] as? Int == 0)
        #expect(report["loops"] as? Int == 2)
        #expect((report["decoded"] as? Int ?? 0) >= 4)
        #expect(report["peakBufferBytes"] is Int)
        #expect(report["ms"] is Double)
        #expect((report["loadMs"] as? Double ?? -1) >= 0 && (report["loadMs"] as? Double ?? .infinity) <= (report["ms"] as? Double ?? 0))
    }

    @Test func writesEachShownFrameAsPNGInTheModesOrder() async throws {
        let files = try Files()
        defer { files.remove() }
        let out = files.dir.appendingPathComponent("frames")
        let run = try await CLIProcess.run(["animate", files.gif.path, "--mode", "bounce", "--rate", "4",
                                            "--out-dir", out.path, "--json"])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(try report(run)["shown"] as? Int == 7)
        let names = try FileManager.default.contentsOfDirectory(atPath: out.path).sorted()
        #expect(names == (1...7).map { String(format: "frame-%05d.png", $0) })
        let gif = try CodersManager.shared.decode(Data(contentsOf: files.gif), options: .default)
        let written = try names.map { try CodersManager.shared.decode(Data(contentsOf: out.appendingPathComponent($0)), options: .default) }
        let expected = try [0, 1, 2, 3, 2, 1, 0].map { try gif.frame(at: $0).bitmap }
        #expect(written.map(\.bitmap) == expected)
    }

    @Test func playsAFileURLAndAStillImage() async throws {
        let files = try Files()
        defer { files.remove() }
        let url = try await CLIProcess.run(["animate", files.gif.absoluteString, "--mode", "reverse", "--json"])
        #expect(url.status == 0, "\(url.stderr)")
        #expect(try report(url)["shown"] as? Int == 4)
        let still = try await CLIProcess.run(["animate", files.png.path, "--json"])
        #expect(still.status == 0, "\(still.stderr)")
        let stillReport = try report(still)
        #expect(stillReport["frames"] as? Int == 1 && stillReport["shown"] as? Int == 1)
        let text = try await CLIProcess.run(["animate", files.png.path])
        #expect(text.status == 0)
        #expect(text.stdout.contains("1 frame(s), shown 1, dropped 0"))
    }

    @Test func realtimePlaysOnTheWallClock() async throws {
        let files = try Files()
        defer { files.remove() }
        let run = try await CLIProcess.run(["animate", files.gif.path, "--realtime", "--rate", "8", "--json"])
        #expect(run.status == 0, "\(run.stderr)")
        let report = try report(run)
        // How many frames a loaded machine drops is not for a unit test to say; each is one or the other.
        #expect((report["shown"] as? Int ?? 0) + (report["dropped"] as? Int ?? 0) == 4)
        #expect(report["loops"] as? Int == 1)
    }

    @Test func badInputIsAClearError() async throws {
        let files = try Files()
        defer { files.remove() }
        let missing = try await CLIProcess.run(["animate", files.dir.appendingPathComponent("nope.gif").path])
        #expect(missing.status == 1)
        #expect(missing.stderr.contains("Cannot read"))
        let notImage = files.dir.appendingPathComponent("text.gif")
        try Data("plain text, not a GIF".utf8).write(to: notImage)
        let bad = try await CLIProcess.run(["animate", notImage.path, "--json"])
        #expect(bad.status == 1)
        let error = try #require(try report(bad)["error"] as? [String: Any])
        #expect(error["name"] as? String == "badImageData")
    }

    @Test(arguments: [
        (["--loops", "0"], "--loops"),
        (["--rate", "0"], "--rate"),
        (["--rate", "nan"], "--rate"),
        (["--mode", "sideways"], "sideways"),
        (["--max-buffer", "-1"], "--max-buffer"),
    ])
    func badFlagValuesExitTwo(flags: [String], token: String) async throws {
        let run = try await CLIProcess.run(["animate", "x.gif"] + flags)
        #expect(run.status == 2, "\(flags): \(run.stderr)")
        #expect(run.stderr.contains(token), "\(flags): \(run.stderr)")
        #expect(run.stdout.isEmpty)
    }
}
