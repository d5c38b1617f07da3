import Foundation
import Testing
@testable import WebImage
@testable import WebImageCodecs
@testable import WebImageLoading

/// The `get` and `prefetch` flags that shape loading, checked where they take effect: at the origin
/// (headers, concurrent requests), in the error (timeout) and in the written file (`-o`).
@Suite("CLI load flags")
struct CLILoadFlagTests {
    @Test func headerReachesTheOrigin() async throws {
        let dir = try CLIProcess.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        try await withTestOrigin { origin in
            origin.setRoute("/a.png", .data(try CLIProcess.pngFixture(), contentType: "image/png"))
            let run = try await CLIProcess.run(["get", origin.url("/a.png").absoluteString, "--cache-dir", dir.path,
                                                "--header", "X-Test-Token: abc 123", "--header", "Accept-Language:fr",
                                                "--json"])
            #expect(run.status == 0, "\(run.stderr)")
            let request = try #require(origin.requests("/a.png").first)
            #expect(request.header("X-Test-Token") == "abc 123")
            #expect(request.header("Accept-Language") == "fr")
        }
    }

    @Test func timeoutEndsASilentDownloadWithTimedOut() async throws {
        let dir = try CLIProcess.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        try await withTestOrigin { origin in
            origin.setRoute("/slow.png", .data(try CLIProcess.pngFixture(), contentType: "image/png", delay: .seconds(30)))
            let run = try await CLIProcess.run(["get", origin.url("/slow.png").absoluteString, "--cache-dir", dir.path,
                                                "--timeout", "0.5", "--retries", "0", "--json"])
            #expect(run.status == 1)
            let error = try #require(try run.object(0)["error"] as? [String: Any])
            #expect(error["name"] as? String == "timedOut")
            // The message names the configured timeout, not the default 15 s.
            #expect((error["message"] as? String)?.contains("0.5 s") == true, "\(error)")
        }
    }

    @Test func retriesTryAFailedDownloadAgain() async throws {
        let dir = try CLIProcess.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        try await withTestOrigin { origin in
            let png = try CLIProcess.pngFixture()
            var busy = TestOriginRoute.status(503)
            busy.headers = [("Retry-After", "120")]
            origin.setRoutes("/busy.png", [busy, .data(png, contentType: "image/png")])
            let url = origin.url("/busy.png").absoluteString
            // The server asks for two minutes; the cap makes it no wait at all.
            let retried = try await CLIProcess.run(["get", url, "--cache-dir", dir.path, "--retry-max-delay", "0", "--json"])
            #expect(retried.status == 0)
            #expect(try retried.object(0)["ok"] as? Bool == true)
            #expect(origin.requestCount("/busy.png") == 2)

            origin.setRoute("/down.png", .status(503))
            let once = try await CLIProcess.run(["get", origin.url("/down.png").absoluteString, "--cache-dir", dir.path,
                                                 "--retries", "0", "--json"])
            #expect(once.status == 1)
            #expect(origin.requestCount("/down.png") == 1)
        }
    }

    /// Every route holds its body until the gate opens, so the loads pile up at the origin: it
    /// sees `cap` requests at once, and — counted from a request's arrival to just before its
    /// response's last write, so a next request can never overlap the count of the one it follows —
    /// never more over the whole run. (A CLI that ignored the flag starts its extra requests with
    /// the first ones, before any body can be released.)
    private func expectConcurrencyCap(_ cap: Int, command: [String], paths: [String],
                                      origin: TestOrigin, gate: TestGate) async throws {
        // A held body must never time out (the default 15 s can pass while a loaded or
        // instrumented run gets to the checks), or the CLI would move on to the next URL.
        async let finished = CLIProcess.run(command + ["--timeout", "600"])
        await origin.wait("\(cap) requests at once") { $0.inFlight == cap }
        #expect(origin.stats.maxInFlight == cap)
        #expect(origin.stats.requests.count == cap)
        gate.open()
        let run = try await finished
        #expect(run.status == 0, "\(run.stderr)")
        #expect(origin.stats.maxInFlight == cap)
        for path in paths { #expect(origin.requestCount(path) == 1) }
    }

    private func gatedRoutes(_ origin: TestOrigin, count: Int, gate: TestGate) throws -> [String] {
        let png = try CLIProcess.pngFixture()
        let paths = (0..<count).map { "/p\($0).png" }
        for path in paths {
            var route = TestOriginRoute.data(png, contentType: "image/png")
            route.mode = .gated(20, gate)
            origin.setRoute(path, route)
        }
        return paths
    }

    /// `--max-concurrent` caps downloads in all, `--max-per-host` those to one host: with every URL
    /// on one host, each caps the same way.
    @Test(arguments: ["--max-concurrent", "--max-per-host"])
    func getCapsDownloads(flag: String) async throws {
        let dir = try CLIProcess.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        try await withTestOrigin { origin in
            let gate = TestGate()
            let paths = try gatedRoutes(origin, count: 5, gate: gate)
            let command = ["get"] + paths.map { origin.url($0).absoluteString }
                + ["--cache-dir", dir.path, flag, "2", "--json"]
            try await expectConcurrencyCap(2, command: command, paths: paths, origin: origin, gate: gate)
        }
    }

    @Test func rateLimitHoldsStartsPastTheBurst() async throws {
        let dir = try CLIProcess.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        try await withTestOrigin { origin in
            let gate = TestGate()
            let paths = try gatedRoutes(origin, count: 27, gate: gate)
            let urls = paths.map { origin.url($0).absoluteString }
            let wide = ["--max-concurrent", "30", "--max-per-host", "30", "--timeout", "600", "--json"]
            // One start per 1,000 s after the burst of 25: the last two cannot start in this test's life.
            let limited = try CLIProcess.start(["get"] + urls + ["--cache-dir", dir.path, "--rate-limit", "0.001"] + wide)
            await origin.wait("the burst of 25 requests") { $0.inFlight == 25 }
            #expect(origin.stats.requests.count == 25)
            limited.terminate()
            _ = await limited.finish()
        }
        try await withTestOrigin { origin in
            let gate = TestGate()
            let paths = try gatedRoutes(origin, count: 27, gate: gate)
            let urls = paths.map { origin.url($0).absoluteString }
            // The default, 80 a second, lets the two past the burst follow within 25 ms.
            let run = try CLIProcess.start(["get"] + urls + ["--cache-dir", dir.path + "/b", "--max-concurrent", "30",
                                                           "--timeout", "600", "--json"])
            await origin.wait("all 27 requests") { $0.inFlight == 27 }
            gate.open()
            let finished = await run.finish()
            #expect(finished.status == 0, "\(finished.stderr)")
        }
    }

    @Test func prefetchMaxConcurrentSetsThePrefetchConcurrency() async throws {
        let dir = try CLIProcess.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        try await withTestOrigin { origin in
            let gate = TestGate()
            let paths = try gatedRoutes(origin, count: 5, gate: gate)
            let urls = paths.map { origin.url($0).absoluteString }
            try await expectConcurrencyCap(1, command: ["prefetch"] + urls + ["--cache-dir", dir.path, "--max-concurrent", "1", "--json"],
                                           paths: paths, origin: origin, gate: gate)
        }
        try await withTestOrigin { origin in
            let gate = TestGate()
            let paths = try gatedRoutes(origin, count: 5, gate: gate)
            let urls = paths.map { origin.url($0).absoluteString }
            // Without the flag: SDWebImage's maxConcurrentPrefetchCount, 3.
            try await expectConcurrencyCap(3, command: ["prefetch"] + urls + ["--cache-dir", dir.path + "/b", "--json"],
                                           paths: paths, origin: origin, gate: gate)
        }
    }

    @Test func prefetchHelpDescribesItsOwnMaxConcurrent() async throws {
        // Help text is wrapped to the terminal: compare with single spaces.
        func words(_ text: String) -> String { text.split(whereSeparator: \.isWhitespace).joined(separator: " ") }
        let help = try await CLIProcess.run(["prefetch", "--help"])
        #expect(help.status == 0)
        #expect(words(help.stdout).contains("--max-concurrent <max-concurrent> Prefetch at most this many URLs at once (default 3"),
                "\(help.stdout)")
        let getHelp = try await CLIProcess.run(["get", "--help"])
        #expect(words(getHelp.stdout).contains("--max-concurrent <max-concurrent> At most this many downloads at once (default 6)"),
                "\(getHelp.stdout)")
    }

    /// An `-o` name with an extension no coder writes is a usage error (CLIUsageTests); with
    /// `--format`, or with no extension, the file is written.
    @Test func outputNameAndFormat() async throws {
        let dir = try CLIProcess.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        try await withTestOrigin { origin in
            origin.setRoute("/a.png", .data(try CLIProcess.pngFixture(), contentType: "image/png"))
            let url = origin.url("/a.png").absoluteString, cache = dir.appendingPathComponent("cache").path
            let psd = dir.appendingPathComponent("out.psd").path
            let refused = try await CLIProcess.run(["get", url, "--cache-dir", cache, "-o", psd])
            #expect(refused.status == 2)
            #expect(refused.stderr.contains(".png, .jpg, .jpeg, .webp, .gif, .avif, .jxl, .tiff, .bmp or .ico"), "\(refused.stderr)")
            #expect(!FileManager.default.fileExists(atPath: psd))

            let forced = try await CLIProcess.run(["get", url, "--cache-dir", cache, "-o", psd, "--format", "webp"])
            #expect(forced.status == 0, "\(forced.stderr)")
            #expect(ImageFormat.detect(try Data(contentsOf: URL(fileURLWithPath: psd))) == .webp)

            // A BMP name is written as BMP (not PNG bytes under a misleading name).
            let bmp = dir.appendingPathComponent("out.bmp").path
            let written = try await CLIProcess.run(["get", url, "--cache-dir", cache, "-o", bmp])
            #expect(written.status == 0, "\(written.stderr)")
            #expect(ImageFormat.detect(try Data(contentsOf: URL(fileURLWithPath: bmp))) == .bmp)

            let bare = dir.appendingPathComponent("plain").path
            let plain = try await CLIProcess.run(["get", url, "--cache-dir", cache, "-o", bare])
            #expect(plain.status == 0, "\(plain.stderr)")
            #expect(ImageFormat.detect(try Data(contentsOf: URL(fileURLWithPath: bare))) == .png)
        }
    }
}
