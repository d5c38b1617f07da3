import Foundation
import Testing
@testable import WebImage
@testable import WebImageServer
@testable import WebImageLoading

/// `webimage serve` end to end: real HTTP to the server on loopback, which fetches from the
/// loopback origin, resizes and encodes. Sizes are checked on the decoded result.
@Suite("Server: images over HTTP")
struct ServerImageTests {
    let photo: [UInt8] = Array(try! JPEGFixtures.encode(TestBitmaps.gradient(width: 400, height: 300)))

    private func source(_ origin: TestOrigin, _ path: String = "/photo.jpg") -> String {
        "http://127.0.0.1:\(origin.port)\(path)"
    }

    @Test func aFitResizeIsServedWithItsHeaders() async throws {
        try await withTestOrigin { origin in
            origin.setRoute("/photo.jpg", .data(photo, contentType: "image/jpeg"))
            // A still clock: the max-age counts down with the source's freshness.
            try await withImageServer(loopbackServerConfiguration { $0.now = { 1_800_000_000 } }) { server in
                let reply = try await server.get("/insecure/rs:fit:200:200/plain/\(source(origin))")
                #expect(reply.status == 200)
                #expect(reply.header("Content-Type") == "image/jpeg")
                #expect(reply.header("Cache-Control") == "public, max-age=86400", "the source's freshness: --source-ttl")
                #expect(reply.header("X-Content-Type-Options") == "nosniff")
                #expect(reply.header("Content-Disposition") == "inline; filename=\"photo.jpg\"")
                #expect(reply.header("ETag")?.hasPrefix("\"") == true)
                #expect(try server.decode(reply).pixelSize == PixelSize(width: 200, height: 150))
            }
        }
    }

    @Test func theExtensionPicksTheFormatAndTheBase64FormWorks() async throws {
        try await withTestOrigin { origin in
            origin.setRoute("/photo.jpg", .data(photo, contentType: "image/jpeg"))
            try await withImageServer(loopbackServerConfiguration()) { server in
                let encoded = Data(source(origin).utf8).base64EncodedString()
                    .replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
                    .replacingOccurrences(of: "=", with: "")
                let reply = try await server.get("/_/rs:fill:100:100/\(encoded).webp")
                #expect(reply.status == 200)
                #expect(reply.header("Content-Type") == "image/webp")
                let image = try server.decode(reply)
                #expect(image.format == .webp)
                #expect(image.pixelSize == PixelSize(width: 100, height: 100))
            }
        }
    }

    @Test func aMatchingETagIsAnswered304() async throws {
        try await withTestOrigin { origin in
            origin.setRoute("/photo.jpg", .data(photo, contentType: "image/jpeg"))
            try await withImageServer(loopbackServerConfiguration()) { server in
                let path = "/insecure/w:64/plain/\(source(origin))@png"
                let first = try await server.get(path)
                let etag = try #require(first.header("ETag"))
                let again = try await server.get(path, headers: [("If-None-Match", etag)])
                #expect(again.status == 304)
                #expect(again.body.isEmpty)
                #expect(again.header("ETag") == etag)
                // The result came from the result cache: the origin saw one request.
                #expect(origin.requestCount("/photo.jpg") == 1)
            }
        }
    }

    @Test func sourcesOnPrivateAddressesAreRefusedByDefault() async throws {
        try await withTestOrigin { origin in
            origin.setRoute("/photo.jpg", .data(photo, contentType: "image/jpeg"))
            try await withImageServer { server in
                let reply = try await server.get("/insecure/rs:fit:50:50/plain/\(source(origin))")
                #expect(reply.status == 403)
                #expect(reply.error?.name == "source_forbidden")
                #expect(origin.requestCount("/photo.jpg") == 0)
            }
        }
    }

    @Test func sourceFailuresMapToImgproxyStatuses() async throws {
        try await withTestOrigin { origin in
            origin.setRoute("/missing.jpg", .status(404))
            origin.setRoute("/broken.jpg", .status(500))
            origin.setRoute("/text.jpg", .data(Array("hello, not an image".utf8), contentType: "image/jpeg"))
            try await withImageServer(loopbackServerConfiguration()) { server in
                let missing = try await server.get("/insecure/w:50/plain/\(source(origin, "/missing.jpg"))")
                #expect(missing.status == 404)
                #expect(missing.error?.name == "source_not_found")
                let broken = try await server.get("/insecure/w:50/plain/\(source(origin, "/broken.jpg"))")
                #expect(broken.status == 502)
                let text = try await server.get("/insecure/w:50/plain/\(source(origin, "/text.jpg"))")
                #expect(text.status == 422)
                #expect(text.header("Content-Type") == "application/json")
                let scheme = try await server.get("/insecure/w:50/plain/file:///etc/passwd")
                #expect(scheme.status == 400)
                #expect(scheme.error?.name == "invalid_source")
            }
        }
    }

    @Test func signedURLsAreCheckedAndBadOnesRefused() async throws {
        let key = "943b421c9eb07c830af81030552c86009268de4e532ba2ee2eab8247c6da0881"
        let salt = "520f986b998545b4785e0defbc4f3c1203f22de2374a3d53cb7a7fe9fea309c5"
        try await withTestOrigin { origin in
            origin.setRoute("/photo.jpg", .data(photo, contentType: "image/jpeg"))
            let configuration = loopbackServerConfiguration { $0.keys = [key]; $0.salts = [salt] }
            try await withImageServer(configuration) { server in
                let path = "/rs:fit:80:80/plain/\(source(origin))"
                let signer = try URLSigner(keys: [key], salts: [salt])
                let good = try await server.get("/\(signer.signature(for: path))\(path)")
                #expect(good.status == 200)
                let bad = try await server.get("/AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA\(path)")
                #expect(bad.status == 403)
                #expect(bad.error?.name == "invalid_signature")
                let unsigned = try await server.get("/insecure\(path)")
                #expect(unsigned.status == 403)
            }
        }
    }

    @Test func unknownOptionsAndOtherPathsAreClearErrors() async throws {
        try await withImageServer(loopbackServerConfiguration()) { server in
            let unknown = try await server.get("/insecure/frobnicate:3/plain/http://127.0.0.1:1/a.jpg")
            #expect(unknown.status == 400)
            #expect(unknown.error?.message.contains("frobnicate") == true)
            let health = try await server.get("/health")
            #expect(health.status == 200)
            let object = try #require(try JSONSerialization.jsonObject(with: health.body) as? [String: Any])
            #expect(object["status"] as? String == "ok")
            let post = try await server.get("/health", method: .POST)
            #expect(post.status == 405)
            let long = try await server.get("/insecure/w:1/plain/http://a.test/" + String(repeating: "a", count: 9000))
            #expect(long.status == 414)
        }
    }
}

/// Back-pressure and the processing order on pixels.
@Suite("Server: limits and processing")
struct ServerLimitTests {
    let photo: [UInt8] = Array(try! JPEGFixtures.encode(TestBitmaps.gradient(width: 400, height: 300)))

    /// `/held.jpg`, whose body waits at the origin until the returned gate opens, and `/other.jpg`.
    private func heldAndOtherSources(_ origin: TestOrigin) -> TestGate {
        let gate = TestGate()
        var held = TestOriginRoute.data(photo, contentType: "image/jpeg")
        held.mode = .gated(100, gate)
        origin.setRoute("/held.jpg", held)
        origin.setRoute("/other.jpg", .data(photo, contentType: "image/jpeg"))
        return gate
    }

    @Test func aRequestBeyondTheWorkersAndTheQueueIsRefusedWith429() async throws {
        try await withTestOrigin { origin in
            let gate = heldAndOtherSources(origin)
            let configuration = loopbackServerConfiguration { $0.workers = 1; $0.maxQueue = 0 }
            try await withImageServer(configuration) { server in
                async let first = server.get("/insecure/w:100/plain/http://127.0.0.1:\(origin.port)/held.jpg")
                // The first request is the only one admitted (workers + queue) while its source is
                // held at the origin.
                await origin.waitForRequest("/held.jpg")
                let refused = try await server.get("/insecure/w:100/plain/http://127.0.0.1:\(origin.port)/other.jpg")
                #expect(refused.status == 429)
                #expect(refused.header("Retry-After") == "1")
                #expect(refused.error?.name == "too_many_requests")
                #expect(origin.requestCount("/other.jpg") == 0)
                gate.open()
                #expect(try await first.status == 200)
                // The worker is free again.
                let later = try await server.get("/insecure/w:100/plain/http://127.0.0.1:\(origin.port)/other.jpg")
                #expect(later.status == 200)
            }
        }
    }

    @Test func aSourceStillDownloadingHoldsNoWorker() async throws {
        try await withTestOrigin { origin in
            let gate = heldAndOtherSources(origin)
            let configuration = loopbackServerConfiguration { $0.workers = 1; $0.maxQueue = 1 }
            try await withImageServer(configuration) { server in
                async let first = server.get("/insecure/w:100/plain/http://127.0.0.1:\(origin.port)/held.jpg")
                await origin.waitForRequest("/held.jpg")
                // The only worker is free while the first source downloads: the second is made.
                let second = try await server.get("/insecure/w:100/plain/http://127.0.0.1:\(origin.port)/other.jpg")
                #expect(second.status == 200)
                #expect(server.server.pipeline.limiter.load.running == 0)
                gate.open()
                #expect(try await first.status == 200)
            }
        }
    }

    @Test func rotationFlipAndCropLandWhereImgproxyPutsThem() async throws {
        // Quadrants: red top-left, green top-right, blue bottom-left, yellow bottom-right.
        let quadrants = try CodersManager().encode(Image(bitmap: TestBitmaps.quadrants(width: 80, height: 60)), as: .png,
                                                  options: .default)
        try await withTestOrigin { origin in
            origin.setRoute("/q.png", .data(Array(quadrants), contentType: "image/png"))
            try await withImageServer(loopbackServerConfiguration()) { server in
                let base = "plain/http://127.0.0.1:\(origin.port)/q.png@png"
                // A clockwise quarter turn: the top-left (red) quadrant goes to the top-right.
                let turned = try server.decode(try await server.get("/insecure/rot:90/\(base)"))
                #expect(turned.pixelSize == PixelSize(width: 60, height: 80))
                #expect(turned.bitmap.pixel(x: 45, y: 10) == TestBitmaps.red)
                // A horizontal flip: red goes to the top-right.
                let flipped = try server.decode(try await server.get("/insecure/fl:1/\(base)"))
                #expect(flipped.bitmap.pixel(x: 70, y: 10) == TestBitmaps.red)
                // A crop of the bottom-right quarter, before resizing: all white.
                let cropped = try server.decode(try await server.get("/insecure/c:40:30:soea/\(base)"))
                #expect(cropped.pixelSize == PixelSize(width: 40, height: 30))
                #expect(cropped.bitmap.pixel(x: 20, y: 15) == TestBitmaps.yellow)
                // Extended to 100×100 on a background: the image sits in the middle.
                let extended = try server.decode(try await server.get("/insecure/rs:fit:100:100:0:1/bg:000000/\(base)"))
                #expect(extended.pixelSize == PixelSize(width: 100, height: 100))
                #expect(extended.bitmap.pixel(x: 50, y: 5) == RGBA(r: 0, g: 0, b: 0, a: 255))
            }
        }
    }
}

/// What the configuration adds to URLs: presets and format negotiation.
@Suite("Server: presets and negotiation")
struct ServerConfigurationTests {
    let photo: [UInt8] = Array(try! JPEGFixtures.encode(TestBitmaps.gradient(width: 400, height: 300)))

    @Test func presetsApplyAndTheDefaultOneComesFirst() async throws {
        try await withTestOrigin { origin in
            origin.setRoute("/photo.jpg", .data(photo, contentType: "image/jpeg"))
            let configuration = loopbackServerConfiguration {
                $0.presets = ["default": "rs:fit:100:100", "square": "rs:fill:50:50"]
            }
            try await withImageServer(configuration) { server in
                let source = "plain/http://127.0.0.1:\(origin.port)/photo.jpg"
                let plain = try await server.get("/insecure/\(source)")
                #expect(try server.decode(plain).pixelSize == PixelSize(width: 100, height: 75))
                let square = try await server.get("/insecure/pr:square/\(source)")
                #expect(try server.decode(square).pixelSize == PixelSize(width: 50, height: 50))
                let unknown = try await server.get("/insecure/pr:round/\(source)")
                #expect(unknown.status == 400)
                #expect(unknown.error?.name == "unknown_preset")
            }
        }
    }

    @Test func autoWebPFollowsAcceptAndSaysVary() async throws {
        try await withTestOrigin { origin in
            origin.setRoute("/photo.jpg", .data(photo, contentType: "image/jpeg"))
            try await withImageServer(loopbackServerConfiguration { $0.autoWebP = true }) { server in
                let path = "/insecure/w:80/plain/http://127.0.0.1:\(origin.port)/photo.jpg"
                let modern = try await server.get(path, headers: [("Accept", "image/avif,image/webp,*/*")])
                #expect(modern.header("Content-Type") == "image/webp")
                #expect(modern.header("Vary") == "Accept")
                let old = try await server.get(path, headers: [("Accept", "image/jpeg")])
                #expect(old.header("Content-Type") == "image/jpeg")
                #expect(old.header("Vary") == "Accept")
                // An explicit format wins over Accept.
                let png = try await server.get(path + "@png", headers: [("Accept", "image/webp")])
                #expect(png.header("Content-Type") == "image/png")
            }
        }
    }
}

/// Sharpening raises the contrast of an edge and leaves flat areas as they are.
@Suite("Server: sharpen")
struct ServerSharpenTests {
    @Test func sharpeningSteepensAnEdge() async throws {
        // Left half dark grey, right half light grey, as lossless PNG.
        let edge = Bitmap(width: 40, height: 10) { out in
            for index in stride(from: 0, to: out.count, by: 4) {
                let x = (index / 4) % 40
                let value: UInt8 = x < 20 ? 80 : 160
                out[index] = value; out[index + 1] = value; out[index + 2] = value; out[index + 3] = 255
            }
        }
        let png = try CodersManager().encode(Image(bitmap: edge), as: .png, options: .default)
        try await withTestOrigin { origin in
            origin.setRoute("/edge.png", .data(Array(png), contentType: "image/png"))
            try await withImageServer(loopbackServerConfiguration()) { server in
                let base = "plain/http://127.0.0.1:\(origin.port)/edge.png@png"
                let plain = try server.decode(try await server.get("/insecure/\(base)")).bitmap
                let sharp = try server.decode(try await server.get("/insecure/sh:2/\(base)")).bitmap
                // Next to the edge the dark side gets darker and the light side lighter.
                #expect(sharp.pixel(x: 19, y: 5).r < plain.pixel(x: 19, y: 5).r)
                #expect(sharp.pixel(x: 20, y: 5).r > plain.pixel(x: 20, y: 5).r)
                // Far from the edge nothing changes.
                #expect(sharp.pixel(x: 2, y: 5) == plain.pixel(x: 2, y: 5))
                #expect(sharp.pixel(x: 38, y: 5) == plain.pixel(x: 38, y: 5))
            }
        }
    }
}

/// `exp`: the URL works until its time, its max-age counts down to it, and a cached result is not
/// served after it.
@Suite("Server: expiring URLs")
struct ServerExpiryTests {
    @Test func aCachedResultIsRefusedOnceItsURLExpired() async throws {
        let photo = Array(try JPEGFixtures.encode(TestBitmaps.gradient(width: 120, height: 90)))
        let clock = Watched<Int64>(1_800_000_000)
        try await withTestOrigin { origin in
            origin.setRoute("/photo.jpg", .data(photo, contentType: "image/jpeg"))
            let configuration = loopbackServerConfiguration { $0.now = { clock.value } }
            try await withImageServer(configuration) { server in
                let path = "/insecure/exp:1800000600/w:60/plain/http://127.0.0.1:\(origin.port)/photo.jpg"
                let fresh = try await server.get(path)
                #expect(fresh.status == 200)
                #expect(fresh.header("Cache-Control") == "public, max-age=600")
                clock.update { $0 += 599 }
                let cached = try await server.get(path)
                #expect(cached.status == 200)
                #expect(cached.header("Cache-Control") == "public, max-age=1")
                // At its time the URL still answers, with nothing left to cache; a second later it is gone.
                clock.update { $0 += 1 }
                #expect(try await server.get(path).header("Cache-Control") == "no-cache")
                clock.update { $0 += 1 }
                let expired = try await server.get(path)
                #expect(expired.status == 410)
                #expect(expired.error?.name == "expired")
                #expect(origin.requestCount("/photo.jpg") == 1)
            }
        }
    }
}

/// `/metrics`: Prometheus text that counts what happened.
@Suite("Server: metrics")
struct ServerMetricsTests {
    @Test func metricsCountRequestsByStatusAndTimeEveryStage() async throws {
        let photo = Array(try JPEGFixtures.encode(TestBitmaps.gradient(width: 120, height: 90)))
        try await withTestOrigin { origin in
            origin.setRoute("/photo.jpg", .data(photo, contentType: "image/jpeg"))
            try await withImageServer(loopbackServerConfiguration()) { server in
                let source = "plain/http://127.0.0.1:\(origin.port)/photo.jpg"
                #expect(try await server.get("/insecure/w:60/\(source)").status == 200)
                #expect(try await server.get("/insecure/w:60/\(source)").status == 200)
                #expect(try await server.get("/insecure/nope:1/\(source)").status == 400)
                let reply = try await server.get("/metrics")
                #expect(reply.status == 200)
                #expect(reply.header("Content-Type")?.hasPrefix("text/plain") == true)
                let text = String(decoding: reply.body, as: UTF8.self)
                let lines = Set(text.split(separator: "\n").map(String.init))
                #expect(lines.contains(#"webimage_serve_requests_total{status="200"} 2"#), "\(text)")
                #expect(lines.contains(#"webimage_serve_requests_total{status="400"} 1"#))
                // One request was processed (the second was a result-cache hit): one sample per stage.
                for stage in ["queue", "download", "decode", "transform", "encode"] {
                    #expect(lines.contains(#"webimage_serve_stage_duration_seconds_count{stage="\#(stage)"} 1"#), "\(stage)")
                }
                #expect(lines.contains(#"webimage_serve_stage_duration_seconds_count{stage="total"} 3"#))
                #expect(text.contains("# TYPE webimage_serve_stage_duration_seconds histogram"))
                // The bitmap pool's gauges are there (their values depend on the whole process).
                for gauge in ["webimage_bitmap_pool_hits_total", "webimage_bitmap_pool_misses_total",
                              "webimage_bitmap_pool_held_bytes"] {
                    #expect(text.contains("# TYPE \(gauge) gauge"), "\(gauge)")
                }
            }
        }
    }
}

/// The source cache keeps the source's own bytes: a larger result of a source first fetched for a
/// smaller one is made from the source, not from the smaller decode.
@Suite("Server: the source cache keeps sources")
struct ServerSourceCacheTests {
    @Test func twoResultsOfOneSourceShareItsDownloadButNotADecode() async throws {
        let photo: [UInt8] = Array(try JPEGFixtures.encode(TestBitmaps.gradient(width: 320, height: 240)))
        try await withTestOrigin { origin in
            let gate = TestGate()
            var held = TestOriginRoute.data(photo, contentType: "image/jpeg")
            held.mode = .gated(100, gate)
            origin.setRoute("/both.jpg", held)
            let configuration = loopbackServerConfiguration { $0.noCache = true }
            try await withImageServer(configuration) { server in
                let source = "http://127.0.0.1:\(origin.port)/both.jpg"
                let url = URL(string: source)!
                let callers = Watched(0)
                server.server.pipeline.downloader.onCallerJoined { joined, count in
                    if joined == url { callers.update { $0 = count } }
                }
                // A thumbnail first: a decode planned for it is 1/8 of the source.
                async let small = server.get("/insecure/w:40/plain/\(source)@png")
                await origin.waitForRequest("/both.jpg")
                async let large = server.get("/insecure/w:300/plain/\(source)@png")
                await callers.wait("the second request to join the download") { $0 == 2 }
                gate.open()
                let smallReply = try await small
                let largeReply = try await large
                #expect(try server.decode(smallReply).pixelSize == PixelSize(width: 40, height: 30))
                #expect(try server.decode(largeReply).pixelSize == PixelSize(width: 300, height: 225))
                #expect(origin.requestCount("/both.jpg") == 1)
            }
        }
    }

    @Test func aLargerResultAfterASmallerOneIsMadeFromTheSource() async throws {
        let photo: [UInt8] = Array(try JPEGFixtures.encode(TestBitmaps.gradient(width: 320, height: 240)))
        try await withTestOrigin { origin in
            origin.setRoute("/s.jpg", .data(photo, contentType: "image/jpeg"))
            let sandbox = DiskCacheSandbox()
            defer { sandbox.remove() }
            try await withImageServer(loopbackServerConfiguration { $0.cacheDirectory = sandbox.root }) { server in
                let source = "http://127.0.0.1:\(origin.port)/s.jpg"
                let small = try await server.get("/insecure/w:50/plain/\(source)@png")
                #expect(try server.decode(small).pixelSize == PixelSize(width: 50, height: 38))
                let large = try await server.get("/insecure/w:160/plain/\(source)@png")
                #expect(try server.decode(large).pixelSize == PixelSize(width: 160, height: 120))
                #expect(origin.requestCount("/s.jpg") == 1, "the second result read the cached source")
            }
        }
    }
}
