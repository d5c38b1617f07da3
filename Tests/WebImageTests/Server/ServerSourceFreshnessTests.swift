import Foundation
import Testing
@testable import WebImage
@testable import WebImageServer

/// A cached source is used while fresh, revalidated past its freshness in the background while
/// its results are served once more, renewed by a 304, and replaced when the origin's bytes
/// changed; results carry ETags of the source's version and a max-age within its freshness.
@Suite("Server: source freshness")
struct ServerSourceFreshnessTests {
    let wide: [UInt8] = Array(try! JPEGFixtures.encode(TestBitmaps.gradient(width: 320, height: 240)))
    let narrow: [UInt8] = Array(try! JPEGFixtures.encode(TestBitmaps.gradient(width: 160, height: 120)))

    private func width(_ reply: ServerReply, _ server: ServerHarness) throws -> Int {
        try server.decode(reply).pixelSize.width
    }

    @Test func aReplacedSourceIsServedStaleWhileItRevalidatesThenTheNewOneIs() async throws {
        try await withTestOrigin { origin in
            let clock = Watched<Int64>(1_000_000)
            var first = TestOriginRoute.data(wide, contentType: "image/jpeg")
            first.etag = "\"a\""
            origin.setRoute("/p.jpg", first)
            let sandbox = DiskCacheSandbox()
            defer { sandbox.remove() }
            try await withImageServer(freshnessServerConfiguration(clock) { $0.cacheDirectory = sandbox.root }) { server in
                let outcomes = server.revalidationOutcomes()
                let source = "http://127.0.0.1:\(origin.port)/p.jpg"
                let path = "/insecure/rs:fit:400:400/plain/\(source)@png"
                let made = try await server.get(path)
                #expect(try width(made, server) == 320)
                let oldKey = try server.resultKey(path, source: source)
                #expect(server.server.pipeline.storedResults?.containsData(forKey: oldKey) == true)
                #expect(made.header("Cache-Control") == "public, max-age=100", "--source-ttl without Cache-Control")

                // The origin's image is replaced; it holds the new body until the gate opens.
                let gate = TestGate()
                var second = TestOriginRoute.data(narrow, contentType: "image/jpeg")
                second.etag = "\"b\""
                second.mode = .gated(0, gate)
                origin.setRoute("/p.jpg", second)

                clock.update { $0 += 50 }
                let fresh = try await server.get(path)
                #expect(fresh.body == made.body)
                #expect(fresh.header("Cache-Control") == "public, max-age=50", "the freshness left")
                #expect(origin.requestCount("/p.jpg") == 1, "a fresh source is not asked for")

                clock.update { $0 += 51 }
                let stale = try await server.get(path)
                #expect(stale.body == made.body, "served once more past its freshness")
                #expect(stale.header("ETag") == made.header("ETag"))
                #expect(stale.header("Cache-Control") == "public, max-age=10", "the floor")
                #expect(await origin.waitForRequest("/p.jpg", count: 2))
                #expect(origin.requests("/p.jpg").last?.header("If-None-Match") == "\"a\"")

                // While the revalidation is held at the origin, another request is answered stale
                // and starts no second one.
                let concurrent = try await server.get(path)
                #expect(concurrent.body == made.body)
                #expect(server.server.pipeline.states.revalidationsInFlight == 1)
                #expect(origin.requestCount("/p.jpg") == 2)

                gate.open()
                #expect(await outcomes.wait("the revalidation to end") { $0 == [.changed] })
                #expect(server.server.pipeline.storedResults?.containsData(forKey: oldKey) == false,
                        "the old version's result left the disk")
                let renewed = try await server.get(path)
                #expect(try width(renewed, server) == 160, "the new image")
                #expect(renewed.header("ETag") != made.header("ETag"))
                #expect(renewed.header("Cache-Control") == "public, max-age=100")
                #expect(origin.requestCount("/p.jpg") == 2, "the new bytes came with the revalidation")
            }
        }
    }

    @Test func aSourceUnchangedAtItsOriginIsRenewedByA304AndItsResultsKept() async throws {
        let sandbox = DiskCacheSandbox()
        defer { sandbox.remove() }
        try await withTestOrigin { origin in
            let clock = Watched<Int64>(2_000_000)
            var route = TestOriginRoute.data(wide, contentType: "image/jpeg")
            route.etag = "\"v1\""
            route.lastModified = "Wed, 21 Oct 2015 07:28:00 GMT"
            route.headers = [("Cache-Control", "public, max-age=300")]
            origin.setRoute("/same.jpg", route)
            // No memory cache: every hit is a disk hit.
            let settings = freshnessServerConfiguration(clock) {
                $0.cacheDirectory = sandbox.root
                $0.resultMemoryBytes = 0
            }
            try await withImageServer(settings) { server in
                let outcomes = server.revalidationOutcomes()
                let path = "/insecure/w:100/plain/http://127.0.0.1:\(origin.port)/same.jpg@webp"
                let made = try await server.get(path)
                #expect(made.status == 200)
                #expect(made.header("Cache-Control") == "public, max-age=300", "the origin's max-age")
                #expect(made.header("Last-Modified") == "Wed, 21 Oct 2015 07:28:00 GMT")

                // The origin now says the image keeps for longer; its 304 carries that.
                var longer = TestOriginRoute.data(wide, contentType: "image/jpeg")
                longer.etag = "\"v1\""
                longer.lastModified = "Wed, 21 Oct 2015 07:28:00 GMT"
                longer.headers = [("Cache-Control", "public, max-age=600")]
                origin.setRoute("/same.jpg", longer)
                clock.update { $0 += 301 }
                let stale = try await server.get(path)
                #expect(stale.body == made.body)
                #expect(stale.header("Cache-Control") == "public, max-age=10")
                #expect(await outcomes.wait("the revalidation to end") { $0 == [.unchanged] })
                let asked = origin.requests("/same.jpg")
                #expect(asked.count == 2)
                #expect(asked.last?.header("If-None-Match") == "\"v1\"")
                #expect(asked.last?.header("If-Modified-Since") == "Wed, 21 Oct 2015 07:28:00 GMT")

                let renewed = try await server.get(path)
                #expect(renewed.body == made.body)
                #expect(renewed.header("ETag") == made.header("ETag"))
                #expect(renewed.header("Cache-Control") == "public, max-age=600", "the 304's new max-age")
                #expect(origin.requestCount("/same.jpg") == 2, "renewed: no request until it is stale again")
                #expect(server.server.metrics.resultsByTier["made"] == 1, "the result was kept, not made again")
                #expect(server.server.metrics.resultsByTier["disk"] == 2)
            }
        }
    }

    @Test func aResultsETagIsItsSourcesVersionAndItsRecipeNotItsBytes() async throws {
        try await withTestOrigin { origin in
            origin.setRoute("/e.jpg", .data(wide, contentType: "image/jpeg"))
            let clock = Watched<Int64>(3_000_000)
            let path = "/insecure/w:90/plain/http://127.0.0.1:\(origin.port)/e.jpg@png"
            let first = try await withImageServer(freshnessServerConfiguration(clock)) { try await $0.get(path) }
            let second = try await withImageServer(freshnessServerConfiguration(clock)) { try await $0.get(path) }
            let etag = try #require(first.header("ETag"))
            #expect(second.header("ETag") == etag, "two instances tag one result alike")
            let identity = SourceRecord.identity(of: Data(wide))
            #expect(etag == ResultETag.make(identity: identity, resultKey: try resultKey(path)))
            let other = try await withImageServer(freshnessServerConfiguration(clock)) {
                try await $0.get("/insecure/w:91/plain/http://127.0.0.1:\(origin.port)/e.jpg@png")
            }
            #expect(other.header("ETag") != etag)
        }
    }

    /// The result key without the source's identity, as the pipeline makes it for `path`.
    private func resultKey(_ path: String) throws -> String {
        let parsed = try ImageURLParser().parse(path)
        let recipe = ResultRecipe.tag(for: loopbackServerConfiguration())
        return parsed.canonicalKey + "|" + (parsed.options.format?.rawValue ?? "source") + "|" + recipe
    }
}
