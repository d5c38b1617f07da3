import Foundation
import Testing
@testable import WebImage
@testable import WebImageServer

/// Requests a stranger could send to kill or exhaust the server, each answered with a clear status
/// (never a trap, an abort or an allocation past the limits), the server still answering after
/// and the process's peak resident set still within ``peakBound``.
@Suite("Server: hostile requests")
struct ServerHostileRequestTests {
    let photo: [UInt8] = Array(try! JPEGFixtures.encode(TestBitmaps.gradient(width: 400, height: 300)))

    /// The most the whole test process may have held at any time: far above what the suites need
    /// together, far below what one unplanned canvas of these cases would take (30000×30000
    /// RGBA is 3.6 GB).
    static let peakBound = 3 << 30

    /// Each `(path, status)` against a 400×300 JPEG, then `/health`; `sizes` gives the result size
    /// expected of some paths.
    private func expect(_ cases: [(String, Int)], sizes: [String: PixelSize] = [:],
                        adjust: @escaping @Sendable (inout ServerConfiguration) -> Void = { _ in }) async throws {
        let photo = photo
        try await withTestOrigin { origin in
            origin.setRoute("/photo.jpg", .data(photo, contentType: "image/jpeg"))
            try await withImageServer(loopbackServerConfiguration(adjust)) { server in
                for (options, status) in cases {
                    let reply = try await server.get("/insecure/\(options)/plain/http://127.0.0.1:\(origin.port)/photo.jpg@png")
                    #expect(reply.status == status, "\(options): \(reply.error.map { "\($0.name) \($0.message)" } ?? "")")
                    #expect(ProcessMemoryUsage.peakResidentBytes < Self.peakBound, "\(options)")
                    if let size = sizes[options], reply.status == 200 {
                        #expect(try server.decode(reply).pixelSize == size, "\(options)")
                    }
                }
                let health = try await server.get("/health")
                #expect(health.status == 200)
                let report = try JSONSerialization.jsonObject(with: Data(health.body)) as? [String: Any]
                #expect((report?["rss_bytes"] as? Int ?? 0) > 0)
                #expect((report?["peak_rss_bytes"] as? Int ?? .max) < Self.peakBound)
            }
        }
    }

    @Test func hugeSizesArePlannedWithinTheResultDimension() async throws {
        let cases = [
            ("s:100000:100000:0:1", 200), ("rs:fit:2147483647:2147483647:0:1", 200),
            ("rs:fit:2147483647:2147483647:1:1", 200), ("s:30000:30000:0:1", 200),
            ("rs:fill:9999999:1:1", 200), ("el:1/dpr:1e300/w:100", 200), ("el:1/z:1e300/w:50", 200),
            ("el:1/mw:99999999", 200), ("el:1/mh:99999999/dpr:1e300/z:1e300", 200),
            ("rs:force:2147483647:1:1", 200),
        ]
        try await expect(cases, sizes: [
            "s:100000:100000:0:1": PixelSize(width: 256, height: 256),
            "rs:fit:2147483647:2147483647:1:1": PixelSize(width: 256, height: 256),
            "el:1/dpr:1e300/w:100": PixelSize(width: 256, height: 192),
        ]) { $0.maxResultDimension = 256 }
    }

    @Test func stepsPastTheBitmapLimitAreRefusedBeforeDecoding() async throws {
        // A fill to a 1-pixel-wide strip enlarges the source to 10923×8192 before the crop: past
        // the largest bitmap a step may make (the dimension limit squared), though the result fits.
        try await expect([("rs:fill:1:8192:1", 422), ("el:1/rs:fill:1:8192", 422), ("w:100", 200)]) {
            $0.maxResultDimension = 8192
            $0.maxSourceResolution = 1_000_000
        }
    }

    @Test func numbersOutsideWhatCanBeComputedAre400() async throws {
        try await expect([
            ("dpr:-0", 400), ("dpr:0", 400), ("dpr:nan", 400), ("dpr:inf", 400), ("dpr:1e400", 400),
            ("z:-0", 400), ("z:NaN", 400), ("w:-1", 400), ("w:99999999999999999999", 400),
            ("bl:-0", 200), ("bl:1e300", 200), ("sh:1e300", 200), ("c:1e300:1e300", 200),
            ("g:ce:1e300:-1e300", 200), ("c:100:100:ce:1e300:1e300", 200), ("rot:-2147483648", 400),
            ("rot:9223372036854775800", 200), ("rot:9223372036854775801", 400), ("q:-0", 200), ("exp:-0", 200),
        ])
    }

    @Test func aURLResolutionLimitOnlyTightens() async throws {
        let key = "943b421c9eb07c830af81030552c86009268de4e532ba2ee2eab8247c6da0881"
        let salt = "520f986b998545b4785e0defbc4f3c1203f22de2374a3d53cb7a7fe9fea309c5"
        let photo = photo
        try await withTestOrigin { origin in
            origin.setRoute("/photo.jpg", .data(photo, contentType: "image/jpeg"))
            let configuration = loopbackServerConfiguration {
                $0.keys = [key]
                $0.salts = [salt]
                $0.maxSourceResolution = 100_000
            }
            try await withImageServer(configuration) { server in
                let signer = try URLSigner(keys: [key], salts: [salt])
                func get(_ options: String) async throws -> ServerReply {
                    let path = "/\(options)/w:50/plain/http://127.0.0.1:\(origin.port)/photo.jpg"
                    return try await server.get("/\(signer.signature(for: path))\(path)")
                }
                // 400×300 is 0.12 MP: over the server's 0.1 MP whatever the URL says.
                for options in ["msr:1e13", "msr:1e300", "msr:5", "msr:0"] {
                    let reply = try await get(options)
                    #expect(reply.status == 422, "\(options)")
                    #expect(reply.error?.name == "source_over_limits", "\(options)")
                }
                #expect(try await get("msr:0.05").status == 422)
                #expect(try await get("msr:nan").status == 400)
                #expect(try await get("msr:-1").status == 400)
                #expect(try await server.get("/health").status == 200)
            }
        }
    }

    @Test func anAnimationsWholeWorkIsRefusedFromItsHeader() async throws {
        // 400 one-pixel frames on a 2000×2000 canvas: 1.6 Gpx of frames to composite.
        let frames = (0..<400).map { GIFFixtures.Frame.solid(UInt8($0 % 4), x: $0 % 2000, width: 1, height: 1) }
        let gif = GIFFixtures.make(width: 2000, height: 2000, frames: frames, loopCount: 0)
        let info = try #require(CodersManager().imageInfo(for: gif))
        #expect(info.frameCount == 400)
        try await withTestOrigin { origin in
            origin.setRoute("/many.gif", .data(Array(gif), contentType: "image/gif"))
            let configuration = loopbackServerConfiguration { $0.maxAnimationFrames = 1000 }
            try await withImageServer(configuration) { server in
                let reply = try await server.get("/insecure/w:10/plain/http://127.0.0.1:\(origin.port)/many.gif")
                #expect(reply.status == 422)
                #expect(reply.error?.name == "source_over_limits")
                #expect(reply.error?.message.contains("400 frames") == true)
                // Refused from the header: the decode step never returned an image and no frame
                // was composited (2000×2000 each), so neither stage has a sample.
                let metrics = String(decoding: try await server.get("/metrics").body, as: UTF8.self)
                for stage in ["decode", "transform"] {
                    #expect(metrics.contains(#"webimage_serve_stage_duration_seconds_count{stage="\#(stage)"} 0"#), "\(stage)")
                }
                #expect(try await server.get("/health").status == 200)
            }
        }
    }

    /// HEIF sources whose item graph libheif 1.15 would follow into an abort (an overlay of a
    /// non-image), endless recursion (a grid made from itself) or hours of decoding (one large
    /// tile named 256 times) are refused before libheif decodes them.
    @Test func heifSourcesThatLibheifCannotSurviveAreRefused() async throws {
        typealias Item = HEIFItemFile.Item
        let sources: [(String, HEIFItemFile, String)] = [
            ("overlay.heic", HEIFItemFile(primary: 1, items: [
                Item(id: 1, type: "iovl", size: (64, 64), data: HEIFItemFile.overlayData(width: 64, height: 64, layers: 1)),
                Item(id: 2, type: "Exif", data: [0, 0, 0, 0]),
            ], references: [("dimg", 1, [2])]), "not an image"),
            ("cycle.heic", HEIFItemFile(primary: 1, items: [
                Item(id: 1, type: "grid", size: (64, 64), data: HEIFItemFile.gridData(rows: 1, columns: 1, width: 64, height: 64)),
            ], references: [("dimg", 1, [1])]), "made from itself"),
            ("amplified.heic", HEIFItemFile(primary: 1, items: [
                Item(id: 1, type: "grid", size: (512, 512), data: HEIFItemFile.gridData(rows: 16, columns: 16, width: 512, height: 512)),
                Item(id: 2, type: "hvc1", size: (4096, 4096)),
            ], references: [("dimg", 1, [Int](repeating: 2, count: 256))]), "pixels from its parts"),
        ]
        try await withTestOrigin { origin in
            for (path, file, _) in sources { origin.setRoute("/\(path)", .data(Array(file.bytes), contentType: "image/heic")) }
            try await withImageServer(loopbackServerConfiguration()) { server in
                for (path, _, said) in sources {
                    let reply = try await server.get("/insecure/w:100/plain/http://127.0.0.1:\(origin.port)/\(path)@png")
                    #expect(reply.status == 422, "\(path)")
                    #expect(reply.error?.name == "source_not_an_image", "\(path)")
                    #expect(reply.error?.message.contains(said) == true, "\(path): \(reply.error?.message ?? "")")
                }
                #expect(try await server.get("/health").status == 200)
            }
        }
    }

    @Test func queryStringsAddNoCacheKeys() async throws {
        let photo = photo
        try await withTestOrigin { origin in
            origin.setRoute("/photo.jpg", .data(photo, contentType: "image/jpeg"))
            try await withImageServer(loopbackServerConfiguration()) { server in
                let path = "/insecure/w:40/plain/http://127.0.0.1:\(origin.port)/photo.jpg@png"
                for index in 0..<50 {
                    #expect(try await server.get(path + "?junk=\(index)").status == 200)
                }
                let results = try #require(server.server.pipeline.results)
                let target = ImagePipeline.targetKey(path + "?junk=7", offered: nil)
                let keys = results.keys(of: target)
                #expect(keys.count == 2, "\(keys)")
                #expect(origin.requestCount("/photo.jpg") == 1)
            }
        }
    }

    @Test func configurationsSharingACacheDirectoryKeepTheirOwnResults() async throws {
        let photo = photo
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("webimage-recipe-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        try await withTestOrigin { origin in
            origin.setRoute("/photo.jpg", .data(photo, contentType: "image/jpeg"))
            let path = "/insecure/w:200/plain/http://127.0.0.1:\(origin.port)/photo.jpg"
            var bodies: [Data] = []
            for quality in [20, 95] {
                let configuration = loopbackServerConfiguration {
                    $0.cacheDirectory = directory
                    $0.defaultQuality = quality
                }
                let body = try await withImageServer(configuration) { server in
                    let reply = try await server.get(path)
                    #expect(reply.status == 200)
                    return reply.body
                }
                bodies.append(body)
            }
            #expect(bodies.count == 2)
            // The second server made its own result rather than serving the first one's from disk.
            #expect(bodies[0] != bodies[1])
            #expect(bodies[1].count > bodies[0].count)
        }
    }
}
