import Foundation
import Testing
@testable import WebImage
@testable import WebImageCodecs
@testable import WebImageLoading

@Suite("CLI cache and prefetch")
struct CLICacheTests {
    @Test(arguments: DiskCacheLayout.allCases)
    func prefetchFillsTheCacheThatInfoCountsAndClearEmpties(layout: DiskCacheLayout) async throws {
        let dir = try CLIProcess.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let png = try CLIProcess.pngFixture()
        try await withTestOrigin { origin in
            origin.setRoute("/a.png", .data(png, contentType: "image/png"))
            origin.setRoute("/b.png", .data(try CLIProcess.pngFixture(width: 20, height: 20), contentType: "image/png"))
            let list = dir.appendingPathComponent("urls.txt")
            try "# pictures\n\(origin.url("/b.png"))\n\n".write(to: list, atomically: true, encoding: .utf8)

            let empty = try await CLIProcess.run(["cache", "info", "--cache-dir", dir.path, "--json"])
            #expect(empty.status == 0)
            let before = try empty.object(0)
            #expect(before["count"] as? Int == 0 && before["bytes"] as? Int == 0)
            #expect(before["path"] as? String == dir.appendingPathComponent("default").path)
            #expect(before["limit"] as? Int == DiskCacheConfig().maxDiskSize)

            let prefetch = try await CLIProcess.run(["prefetch", origin.url("/a.png").absoluteString, "--file", list.path,
                                                     "--cache-dir", dir.path, "--disk-layout", layout.rawValue, "--json"])
            #expect(prefetch.status == 0, "\(prefetch.stderr)")
            let summary = try prefetch.object(0)
            #expect(summary["total"] as? Int == 2 && summary["finished"] as? Int == 2)
            #expect(summary["skipped"] as? Int == 0)
            #expect(summary["ms"] is Double)

            let info = try await CLIProcess.run(["cache", "info", "--cache-dir", dir.path, "--json"])
            let counted = try info.object(0)
            #expect(counted["count"] as? Int == 2)
            #expect(counted["layout"] as? String == layout.rawValue)  // found in the directory
            #expect((counted["bytes"] as? Int ?? 0) >= png.count)

            let cached = try await CLIProcess.run(["get", origin.url("/a.png").absoluteString, "--cache-dir", dir.path,
                                                   "--option", "fromCacheOnly", "--json"])
            #expect(try cached.object(0)["cacheType"] as? String == "disk")

            let clean = try await CLIProcess.run(["cache", "clean", "--cache-dir", dir.path, "--json"])
            #expect(clean.status == 0)
            #expect(try clean.object(0)["count"] as? Int == 2)

            let clear = try await CLIProcess.run(["cache", "clear", "--cache-dir", dir.path, "--json"])
            #expect(clear.status == 0)
            let cleared = try clear.object(0)
            #expect(cleared["removed"] as? Int == 2 && cleared["count"] as? Int == 0)
            let after = try await CLIProcess.run(["cache", "info", "--cache-dir", dir.path, "--json"])
            #expect(try after.object(0)["count"] as? Int == 0)
            #expect(origin.requestCount("/a.png") == 1)
        }
    }

    @Test func prefetchCountsFailuresAsSkipped() async throws {
        let dir = try CLIProcess.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        try await withTestOrigin { origin in
            origin.setRoute("/a.png", .data(try CLIProcess.pngFixture(), contentType: "image/png"))
            let run = try await CLIProcess.run(["prefetch", origin.url("/a.png").absoluteString,
                                                origin.url("/gone.png").absoluteString, "--cache-dir", dir.path, "--json"])
            #expect(run.status == 1)
            let summary = try run.object(0)
            #expect(summary["total"] as? Int == 2 && summary["finished"] as? Int == 2)
            #expect(summary["skipped"] as? Int == 1)
        }
    }

    /// Issue 6: `clean` removes expired entries. One entry is aged past the default week on disk;
    /// `cache clean` removes exactly that one.
    @Test func cleanRemovesAnAgedEntry() async throws {
        let dir = try CLIProcess.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let cache = DiskCache(config: DiskCacheConfig(directory: dir))
        try cache.setData(diskCacheBytes(300), forKey: "old")
        try cache.setData(diskCacheBytes(200), forKey: "new")
        let eightDaysAgo = Date().timeIntervalSince1970 - 8 * 86_400
        #expect(DiskCacheFileSystem.setDates(access: eightDaysAgo, modification: eightDaysAgo,
                                             atPath: cache.cachePath(forKey: "old")))

        let clean = try await CLIProcess.run(["cache", "clean", "--cache-dir", dir.path, "--json"])
        #expect(clean.status == 0, "\(clean.stderr)")
        let summary = try clean.object(0)
        #expect(summary["removed"] as? Int == 1)
        #expect(summary["freedBytes"] as? Int == 300)
        #expect(summary["count"] as? Int == 1 && summary["bytes"] as? Int == 200)
        #expect(!FileManager.default.fileExists(atPath: cache.cachePath(forKey: "old")))
        #expect(FileManager.default.fileExists(atPath: cache.cachePath(forKey: "new")))
    }

    /// Without `--cache-dir` the cache lives in `$XDG_CACHE_HOME/webimage/default` when that is an
    /// absolute path, else in `$HOME/.cache/webimage/default`; `get` stores there and `cache info`
    /// finds it.
    @Test func defaultCacheRootFollowsXDGElseHome() async throws {
        let dir = try CLIProcess.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let home = dir.appendingPathComponent("home").path, xdg = dir.appendingPathComponent("xdg").path
        let settings: [([String: String?], String)] = [
            (["XDG_CACHE_HOME": xdg, "HOME": home], xdg + "/webimage/default"),
            (["XDG_CACHE_HOME": "relative/cache", "HOME": home], home + "/.cache/webimage/default"),
            (["XDG_CACHE_HOME": nil, "HOME": home], home + "/.cache/webimage/default"),
        ]
        for (environment, expected) in settings {
            let info = try await CLIProcess.run(["cache", "info", "--json"], environment: environment)
            #expect(info.status == 0, "\(environment): \(info.stderr)")
            #expect(try info.object(0)["path"] as? String == expected, "\(environment)")
        }

        try await withTestOrigin { origin in
            origin.setRoute("/a.png", .data(try CLIProcess.pngFixture(), contentType: "image/png"))
            let otherHome = dir.appendingPathComponent("other-home").path
            let environment: [String: String?] = ["XDG_CACHE_HOME": xdg, "HOME": otherHome]
            let get = try await CLIProcess.run(["get", origin.url("/a.png").absoluteString, "--json"], environment: environment)
            #expect(get.status == 0, "\(get.stderr)")
            let info = try await CLIProcess.run(["cache", "info", "--json"], environment: environment)
            #expect(try info.object(0)["count"] as? Int == 1)
            let files = try FileManager.default.contentsOfDirectory(atPath: xdg + "/webimage/default")
            #expect(files.filter { !$0.hasPrefix(".") }.count == 1)
            #expect(!FileManager.default.fileExists(atPath: otherHome))
        }
    }
}
