import Foundation
import Testing
@testable import WebImage
@testable import WebImageCodecs
@testable import WebImageLoading

@Suite("CLI get")
struct CLIGetTests {
    @Test func secondProcessReportsDiskCacheHit() async throws {
        let dir = try CLIProcess.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let png = try CLIProcess.pngFixture()
        try await withTestOrigin { origin in
            origin.setRoute("/a.png", .data(png, contentType: "image/png"))
            let url = origin.url("/a.png").absoluteString
            let first = try await CLIProcess.run(["get", url, "--cache-dir", dir.path, "--json"])
            #expect(first.status == 0, "\(first.stderr)")
            let cold = try first.object(0)
            #expect(cold["url"] as? String == url)
            #expect(cold["ok"] as? Bool == true)
            #expect(cold["cacheType"] as? String == "none")
            #expect(cold["width"] as? Int == 64 && cold["height"] as? Int == 48)
            #expect(cold["frames"] as? Int == 1)
            #expect(cold["format"] as? String == "png")
            #expect(cold["bytes"] as? Int == png.count)
            #expect(cold["output"] is NSNull)
            #expect(cold["ms"] is Double)

            let second = try await CLIProcess.run(["get", url, "--cache-dir", dir.path, "--json"])
            #expect(second.status == 0)
            let warm = try second.object(0)
            #expect(warm["cacheType"] as? String == "disk")
            #expect(warm["bytes"] as? Int == png.count)
            #expect(origin.requestCount("/a.png") == 1)
        }
    }

    /// A port above 65535 traps in the socket layer if it gets there: the CLI reports it as a
    /// failed URL (exit 1) instead of dying on a signal, with and without the safe-fetch guard.
    @Test(arguments: [[], ["--deny-private-addresses"]])
    func aURLWithAnInvalidPortIsAnErrorNotACrash(extra: [String]) async throws {
        let dir = try CLIProcess.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let run = try await CLIProcess.run(["get", "http://127.0.0.1:70000/x", "--cache-dir", dir.path, "--json"] + extra)
        #expect(run.status == 1, "\(run.stderr)")
        let error = try #require(try run.object(0)["error"] as? [String: Any])
        #expect(error["name"] as? String == "invalidURL")
        #expect((error["message"] as? String)?.contains("port 70000") == true, "\(error)")
        let table = try await CLIProcess.run(["get", "http://127.0.0.1:70000/x", "--cache-dir", dir.path] + extra)
        #expect(table.status == 1, "\(table.stderr)")
        #expect(table.stdout.contains("port 70000") || table.stderr.contains("port 70000"), "\(table.stdout)")
    }

    @Test func oneFailingURLExitsOneAndPrintsBothLinesInOrder() async throws {
        let dir = try CLIProcess.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let png = try CLIProcess.pngFixture()
        try await withTestOrigin { origin in
            origin.setRoute("/ok.png", .data(png, contentType: "image/png", delay: .milliseconds(200)))
            let missing = origin.url("/missing.png").absoluteString
            let run = try await CLIProcess.run(["get", missing, origin.url("/ok.png").absoluteString,
                                                "--cache-dir", dir.path, "--json"])
            #expect(run.status == 1)
            #expect(run.lines.count == 2)
            let failed = try run.object(0)
            #expect(failed["url"] as? String == missing)
            #expect(failed["ok"] as? Bool == false)
            let error = try #require(failed["error"] as? [String: Any])
            #expect(error["code"] as? Int == 2001)
            #expect(error["name"] as? String == "invalidDownloadStatusCode")
            #expect(error["httpStatus"] as? Int == 404)
            #expect((error["message"] as? String)?.isEmpty == false)
            #expect(try run.object(1)["ok"] as? Bool == true)
        }
    }

    @Test func thumbnailAndTransformSetTheDeliveredSize() async throws {
        let dir = try CLIProcess.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let png = try CLIProcess.pngFixture()
        try await withTestOrigin { origin in
            origin.setRoute("/a.png", .data(png, contentType: "image/png"))
            let url = origin.url("/a.png").absoluteString
            func size(_ extra: [String]) async throws -> String {
                let run = try await CLIProcess.run(["get", url, "--cache-dir", dir.path, "--json"] + extra)
                #expect(run.status == 0, "\(extra): \(run.stderr)")
                let object = try run.object(0)
                return "\(object["width"] as? Int ?? -1)x\(object["height"] as? Int ?? -1)"
            }
            let cases: [([String], String)] = [
                (["--thumbnail", "32x32"], "32x24"),
                (["--transform", "resize:20x10"], "20x10"),
                (["--transform", "crop:0,0,10,8"], "10x8"),
                (["--transform", "resize:20x10", "--transform", "rotate:90:fit"], "10x20"),
                (["--transform", "round:4:1:#ff0000ff", "--transform", "flip:hv",
                  "--transform", "tint:#00ff0080", "--transform", "blur:1"], "64x48"),
            ]
            for (extra, expected) in cases {
                let delivered = try await size(extra)
                #expect(delivered == expected, "\(extra)")
            }
            // Only the original was downloaded: every derived image came from the cached original.
            #expect(origin.requestCount("/a.png") == 1)
        }
    }

    @Test func writesFilesInTheAskedFormat() async throws {
        let dir = try CLIProcess.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let png = try CLIProcess.pngFixture()
        try await withTestOrigin { origin in
            origin.setRoute("/pics/a.png", .data(png, contentType: "image/png"))
            origin.setRoute("/pics/b.png", .data(png, contentType: "image/png"))
            let a = origin.url("/pics/a.png").absoluteString, b = origin.url("/pics/b.png").absoluteString
            let cache = dir.appendingPathComponent("cache").path

            let single = dir.appendingPathComponent("single.jpg").path
            let one = try await CLIProcess.run(["get", a, "--cache-dir", cache, "-o", single, "--json"])
            #expect(one.status == 0, "\(one.stderr)")
            #expect(try one.object(0)["output"] as? String == single)
            let jpeg = try Data(contentsOf: URL(fileURLWithPath: single))
            #expect(ImageFormat.detect(jpeg) == .jpeg)

            let outDir = dir.appendingPathComponent("out").path
            let many = try await CLIProcess.run(["get", a, b, "--cache-dir", cache, "--out-dir", outDir,
                                                 "--format", "webp", "--thumbnail", "16x16", "--json"])
            #expect(many.status == 0, "\(many.stderr)")
            for index in 0..<2 {
                let path = try #require(try many.object(index)["output"] as? String)
                #expect(path.hasSuffix(".webp"))
                let image = try CodersManager.shared.decode(try Data(contentsOf: URL(fileURLWithPath: path)),
                                                            options: DecodeOptions())
                #expect(image.format == .webp)
                #expect(image.width == 16 && image.height == 12)
            }
        }
    }

    @Test func readableTableWithoutJSON() async throws {
        let dir = try CLIProcess.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let png = try CLIProcess.pngFixture()
        try await withTestOrigin { origin in
            origin.setRoute("/a.png", .data(png, contentType: "image/png"))
            let run = try await CLIProcess.run(["get", origin.url("/a.png").absoluteString, "--cache-dir", dir.path])
            #expect(run.status == 0)
            #expect(run.lines.first?.hasPrefix("#") == true)
            #expect(run.stdout.contains("64x48"))
            // Not a terminal: no progress bar.
            #expect(!run.stderr.contains("["))
        }
    }

    @Test func everyOptionNameParses() async throws {
        let dir = try CLIProcess.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let dataURL = "data:image/png;base64," + Data(try CLIProcess.pngFixture(width: 4, height: 4)).base64EncodedString()
        let names = WebImageOptions.named.map(\.name)
        #expect(names.contains("retryFailed") && names.contains("allowInvalidSSLCertificates"))
        let all = try await CLIProcess.run(["get", dataURL, "--cache-dir", dir.path, "--json"]
                                           + names.flatMap { ["--option", $0] })
        // fromCacheOnly makes this a miss (exit 1), but every name parsed: no usage error.
        #expect(all.status == 1, "\(all.stderr)")
        let miss = try all.object(0)
        #expect((miss["error"] as? [String: Any])?["name"] as? String == "notCached")
        let loading = try await CLIProcess.run(["get", dataURL, "--cache-dir", dir.path, "--json"]
                                               + names.filter { $0 != "fromCacheOnly" }.flatMap { ["--option", $0] })
        #expect(loading.status == 0, "\(loading.stderr)")
        #expect(try loading.object(0)["width"] as? Int == 4)
    }
}
