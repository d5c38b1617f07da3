import Foundation
import Testing
@testable import WebImage
@testable import WebImageCodecs
@testable import WebImageLoading

@Suite("CLI bench subject")
struct CLIBenchTests {
    @Test func coldWarmDiskAndWarmMemoryRunThroughTheManager() async throws {
        let dir = try CLIProcess.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        try await withTestOrigin { origin in
            let paths = try Self.serveSet("set-a", count: 5, on: origin)
            let base = origin.origin
            for mode in ["cold", "warm-disk", "warm-memory"] {
                let run = try await CLIProcess.run(["bench", "--base", base, "--set", "set-a", "--mode", mode,
                                                    "--cache-dir", dir.path, "--concurrency", "2"])
                #expect(run.status == 0, "\(mode): \(run.stderr)")
                let line = try run.object(0)
                #expect(line["mode"] as? String == mode && line["images"] as? Int == 5)
                #expect((line["images_per_s"] as? Double ?? 0) > 0)
                // CPU per image: loading and decoding five images cost some, and not seconds each.
                let cpu = line["cpu_ms_per_image"] as? Double ?? -1
                #expect(cpu >= 0 && cpu < 5_000, "\(mode): cpu_ms_per_image \(cpu)")
            }
            // warm-disk needed no network: cold fetched each file once, warm-memory once more.
            #expect(paths.allSatisfy { origin.requestCount("/" + $0) == 2 })
        }
    }

    @Test func memoryOnlyRunsWriteNothingToTheDiskCache() async throws {
        let dir = try CLIProcess.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        try await withTestOrigin { origin in
            _ = try Self.serveSet("m", count: 3, on: origin)
            // Every run starts by emptying the disk cache, so each is checked before the next.
            // A thumbnail run also has an original to store (under its own key).
            for (mode, thumbnail) in [("cold", "0"), ("warm-memory", "0"), ("cold", "16")] {
                let run = try await CLIProcess.run(["bench", "--base", origin.origin, "--set", "m", "--mode", mode,
                                                    "--cache-dir", dir.path, "--memory-only", "--thumbnail", thumbnail])
                #expect(run.status == 0, "\(mode): \(run.stderr)")
                let line = try run.object(0)
                #expect(line["memory_only"] as? Bool == true && line["images"] as? Int == 3)
                #expect(Self.regularFiles(under: dir).isEmpty, "\(mode) --thumbnail \(thumbnail) wrote files")
            }
            // The same check sees the files of a run that writes them (sidecars and temporaries included).
            let writing = try await CLIProcess.run(["bench", "--base", origin.origin, "--set", "m", "--mode", "cold",
                                                    "--cache-dir", dir.path, "--thumbnail", "16"])
            #expect(writing.status == 0, "\(writing.stderr)")
            #expect(Self.regularFiles(under: dir).count >= 6, "\(Self.regularFiles(under: dir))")
            let warmDisk = try await CLIProcess.run(["bench", "--base", origin.origin, "--set", "m", "--mode", "warm-disk",
                                                     "--cache-dir", dir.path, "--memory-only"])
            #expect(warmDisk.status != 0)
            #expect(warmDisk.stderr.contains("--memory-only writes nothing to the disk cache"))
        }
    }

    /// Serves set `name` on `origin` as the bench reads it: `count` 40×30 PNGs and a manifest
    /// listing them. Returns the images' paths.
    private static func serveSet(_ name: String, count: Int, on origin: TestOrigin) throws -> [String] {
        let png = try CLIProcess.pngFixture(width: 40, height: 30)
        let paths = (0..<count).map { "\(name)/\($0).png" }
        for path in paths { origin.setRoute("/" + path, .data(png, contentType: "image/png")) }
        let files = paths.map { "{\"path\":\"\($0)\",\"set\":\"\(name)\"}" }.joined(separator: ",")
        origin.setRoute("/manifest.json", .data(Array("{\"files\":[\(files)]}".utf8), contentType: "application/json"))
        return paths
    }

    /// Every regular file under `dir`, hidden ones included (relative paths).
    private static func regularFiles(under dir: URL) -> [String] {
        let names = FileManager.default.enumerator(atPath: dir.path)?.compactMap { $0 as? String } ?? []
        return names.filter { name in
            var isDirectory: ObjCBool = false
            return FileManager.default.fileExists(atPath: dir.appendingPathComponent(name).path, isDirectory: &isDirectory)
                && !isDirectory.boolValue
        }
    }

    @Test func warmDiskWithoutAColdRunIsAClearFailure() async throws {
        let dir = try CLIProcess.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        try await withTestOrigin { origin in
            origin.setRoute("/manifest.json", .data(Array("{\"files\":[{\"path\":\"s/0.png\",\"set\":\"s\"}]}".utf8)))
            origin.setRoute("/s/0.png", .data(try CLIProcess.pngFixture()))
            let run = try await CLIProcess.run(["bench", "--base", origin.origin, "--set", "s", "--mode", "warm-disk",
                                                "--cache-dir", dir.path])
            #expect(run.status != 0)
            #expect(run.stderr.contains("expected disk"))
        }
    }

    @Test func networkBenchResumesAndHoldsThePerHostLimit() async throws {
        let run = try await CLIProcess.run(["bench-network", "--big-megabytes", "1", "--urls", "40", "--hosts", "2",
                                            "--max-per-host", "2", "--rounds", "1", "--guard-rounds", "1", "--json"])
        #expect(run.status == 0, "\(run.stderr)")
        let line = try run.object(0)
        let resume = try #require(line["resume"] as? [String: Any])
        #expect(resume["ok"] as? Bool == true)
        #expect((resume["resumedBytes"] as? Int ?? 0) > 0, "the retry resumed: \(resume)")
        let perHost = try #require(line["perHost"] as? [String: Any])
        #expect(perHost["limitedPeakPerHost"] as? Int ?? 99 <= 2, "\(perHost)")
        let guarded = try #require(line["guard"] as? [String: Any])
        #expect((guarded["onMicrosecondsPerLoad"] as? Double ?? 0) > 0, "the guarded loads went through: \(guarded)")
    }
}
