import Foundation
import Testing
@testable import WebImage
@testable import WebImageCodecs
@testable import WebImageLoading

/// `get --option refreshCached` across processes: each run waits for its revalidation, so what the
/// origin saw is settled when the process exits.
@Suite("CLI refreshCached")
struct CLIRefreshTests {
    /// The pixel size of the image file at `path`.
    private func pixelSize(_ path: String) throws -> PixelSize {
        try CodersManager.shared.decode(try Data(contentsOf: URL(fileURLWithPath: path)), options: DecodeOptions()).pixelSize
    }

    @Test func unchangedOriginAnswers304AndTheCachedImageIsReported() async throws {
        let dir = try CLIProcess.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let png = try CLIProcess.pngFixture()
        try await withTestOrigin { origin in
            var route = TestOriginRoute.data(png, contentType: "image/png")
            route.etag = "\"v1\""
            origin.setRoute("/a.png", route)
            let url = origin.url("/a.png").absoluteString, cache = dir.appendingPathComponent("cache").path
            let first = try await CLIProcess.run(["get", url, "--cache-dir", cache, "--option", "refreshCached", "--json"])
            #expect(first.status == 0, "\(first.stderr)")
            #expect(try first.object(0)["cacheType"] as? String == "none")

            let out = dir.appendingPathComponent("second.png").path
            let second = try await CLIProcess.run(["get", url, "--cache-dir", cache, "--option", "refreshCached",
                                                   "-o", out, "--json"])
            #expect(second.status == 0, "\(second.stderr)")
            #expect(second.lines.count == 1)
            let report = try second.object(0)
            #expect(report["ok"] as? Bool == true)
            #expect(report["cacheType"] as? String == "disk")
            #expect(report["width"] as? Int == 64 && report["height"] as? Int == 48)
            #expect(report["bytes"] as? Int == png.count)
            #expect(try pixelSize(out) == PixelSize(width: 64, height: 48))

            let requests = origin.requests("/a.png")
            #expect(requests.count == 2)
            #expect(requests.first?.header("If-None-Match") == nil)
            #expect(requests.last?.header("If-None-Match") == "\"v1\"")
        }
    }

    @Test func changedOriginWritesAndCachesTheNewImage() async throws {
        let dir = try CLIProcess.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        try await withTestOrigin { origin in
            var route = TestOriginRoute.data(try CLIProcess.pngFixture(), contentType: "image/png")
            route.etag = "\"v1\""
            origin.setRoute("/a.png", route)
            let url = origin.url("/a.png").absoluteString, cache = dir.appendingPathComponent("cache").path
            let first = try await CLIProcess.run(["get", url, "--cache-dir", cache, "--json"])
            #expect(first.status == 0, "\(first.stderr)")

            let newPNG = try CLIProcess.pngFixture(width: 32, height: 16)
            var changed = TestOriginRoute.data(newPNG, contentType: "image/png")
            changed.etag = "\"v2\""
            origin.setRoute("/a.png", changed)
            let out = dir.appendingPathComponent("second.png").path
            let second = try await CLIProcess.run(["get", url, "--cache-dir", cache, "--option", "refreshCached",
                                                   "-o", out, "--json"])
            #expect(second.status == 0, "\(second.stderr)")
            #expect(second.lines.count == 1)
            let report = try second.object(0)
            #expect(report["cacheType"] as? String == "none")
            #expect(report["width"] as? Int == 32 && report["height"] as? Int == 16)
            #expect(report["bytes"] as? Int == newPNG.count)
            #expect(report["output"] as? String == out)
            #expect(try pixelSize(out) == PixelSize(width: 32, height: 16))
            #expect(origin.requests("/a.png").last?.header("If-None-Match") == "\"v1\"")

            let thirdOut = dir.appendingPathComponent("third.png").path
            let third = try await CLIProcess.run(["get", url, "--cache-dir", cache, "-o", thirdOut, "--json"])
            #expect(third.status == 0, "\(third.stderr)")
            let cached = try third.object(0)
            #expect(cached["cacheType"] as? String == "disk")
            #expect(cached["width"] as? Int == 32 && cached["height"] as? Int == 16)
            #expect(cached["bytes"] as? Int == newPNG.count)
            #expect(try pixelSize(thirdOut) == PixelSize(width: 32, height: 16))
            #expect(origin.requestCount("/a.png") == 2)
        }
    }
}
