import Foundation
import HTTPTypes
import Testing
@testable import WebImage
@testable import WebImageServer

/// A result is only as fresh as its source, whichever tier it comes from: a hit on the event loop,
/// in memory through the async handler, on disk after a restart, or in the shared tier, whose
/// source is past its freshness is served once more and starts the source's revalidation; once the
/// source changed, no tier serves its old results; `Cache-Control` and `Last-Modified` follow the
/// source's record wherever the result comes from.
@Suite("Server: stale results from every tier")
struct ServerStaleResultTiersTests {
    let wide: [UInt8] = Array(try! JPEGFixtures.encode(TestBitmaps.gradient(width: 320, height: 240)))
    let narrow: [UInt8] = Array(try! JPEGFixtures.encode(TestBitmaps.gradient(width: 160, height: 120)))
    static let modified = "Wed, 21 Oct 2015 07:28:00 GMT"
    static let remodified = "Thu, 22 Oct 2015 07:28:00 GMT"

    /// `bytes` with an ETag and a Last-Modified (no Cache-Control: the source lives `--source-ttl`).
    private func version(_ bytes: [UInt8], etag: String, lastModified: String) -> TestOriginRoute {
        var route = TestOriginRoute.data(bytes, contentType: "image/jpeg")
        route.etag = etag
        route.lastModified = lastModified
        return route
    }

    @Test func aHitOnTheEventLoopOfAStaleSourceIsServedOnceMoreAndStartsItsRevalidation() async throws {
        try await withTestOrigin { origin in
            let clock = Watched<Int64>(1_000_000)
            origin.setRoute("/f.jpg", version(wide, etag: "\"a\"", lastModified: Self.modified))
            try await withImageServer(freshnessServerConfiguration(clock)) { server in
                let outcomes = server.revalidationOutcomes()
                let path = "/insecure/w:100/plain/http://127.0.0.1:\(origin.port)/f.jpg@png"
                let made = try await server.get(path)
                #expect(made.status == 200)
                let request = HTTPRequest(method: .get, scheme: nil, authority: nil, path: path)

                clock.update { $0 += 101 }
                let stale = try #require(server.server.cachedAnswer(to: request), "answered on the event loop")
                #expect(stale.head.status == .ok)
                #expect(stale.body.map { Data($0.readableBytesView) } == made.body)
                #expect(stale.head.headerFields[.cacheControl] == "public, max-age=10", "stale: the floor")
                #expect(stale.head.headerFields[.lastModified] == Self.modified)
                #expect(await outcomes.wait("the revalidation the hit started") { $0 == [.unchanged] })
                #expect(origin.requests("/f.jpg").last?.header("If-None-Match") == "\"a\"")

                let renewed = try #require(server.server.cachedAnswer(to: request))
                #expect(renewed.head.headerFields[.cacheControl] == "public, max-age=100", "renewed by the 304")
                let etag = try #require(made.header("ETag"))
                var conditional = request
                conditional.headerFields[.ifNoneMatch] = etag
                let notModified = try #require(server.server.cachedAnswer(to: conditional))
                #expect(notModified.head.status == .notModified && notModified.body == nil)
                #expect(notModified.head.headerFields[.lastModified] == Self.modified)
                #expect(notModified.head.headerFields[.cacheControl] == "public, max-age=100")
                #expect(origin.requestCount("/f.jpg") == 2)
            }
        }
    }

    @Test func aMemoryHitInTheAsyncHandlerOfAStaleSourceIsServedOnceMoreAndStartsItsRevalidation() async throws {
        try await withTestOrigin { origin in
            let clock = Watched<Int64>(2_000_000)
            origin.setRoute("/m.jpg", version(wide, etag: "\"a\"", lastModified: Self.modified))
            try await withImageServer(freshnessServerConfiguration(clock)) { server in
                let outcomes = server.revalidationOutcomes()
                let base = "plain/http://127.0.0.1:\(origin.port)/m.jpg@png"
                let made = try await server.get("/insecure/rs:fit:400:400/" + base)
                origin.setRoute("/m.jpg", version(narrow, etag: "\"b\"", lastModified: Self.remodified))

                clock.update { $0 += 101 }
                // Another spelling of the same options: a request target not seen before, whose
                // result key is the one in memory.
                let stale = try await server.get("/insecure/resize:fit:400:400/" + base)
                #expect(stale.body == made.body)
                #expect(stale.header("ETag") == made.header("ETag"))
                #expect(stale.header("Cache-Control") == "public, max-age=10")
                #expect(stale.header("Last-Modified") == Self.modified)
                #expect(server.server.metrics.resultsByTier["memory"] == 1)
                #expect(await outcomes.wait("the revalidation the hit started") { $0 == [.changed] })

                // A HEAD is never answered on the event loop: the async handler's memory lookup
                // finds the old version's result gone.
                let head = try await server.get("/insecure/rs:fit:400:400/" + base, method: .HEAD)
                #expect(head.status == 200)
                #expect(head.header("ETag") != made.header("ETag"))
                #expect(head.header("Last-Modified") == Self.remodified)
                #expect(head.header("Cache-Control") == "public, max-age=100")
                #expect(server.server.metrics.resultsByTier["made"] == 2)
            }
        }
    }

    @Test func aDiskHitAfterARestartOfAStaleSourceIsServedOnceMoreThenNeverAgainOnceItChanged() async throws {
        let sandbox = DiskCacheSandbox()
        defer { sandbox.remove() }
        try await withTestOrigin { origin in
            let clock = Watched<Int64>(3_000_000)
            origin.setRoute("/d.jpg", version(wide, etag: "\"a\"", lastModified: Self.modified))
            // No memory cache: every hit is a disk hit.
            let settings = freshnessServerConfiguration(clock) {
                $0.cacheDirectory = sandbox.root
                $0.resultMemoryBytes = 0
            }
            let path = "/insecure/rs:fit:400:400/plain/http://127.0.0.1:\(origin.port)/d.jpg@webp"
            let made = try await withImageServer(settings) { try await $0.get(path) }
            #expect(made.status == 200)
            origin.setRoute("/d.jpg", version(narrow, etag: "\"b\"", lastModified: Self.remodified))

            clock.update { $0 += 101 }
            try await withImageServer(settings) { server in
                let outcomes = server.revalidationOutcomes()
                let stale = try await server.get(path)
                #expect(stale.body == made.body, "the stored result, served once more")
                #expect(stale.header("Cache-Control") == "public, max-age=10")
                #expect(stale.header("Last-Modified") == Self.modified)
                #expect(server.server.metrics.resultsByTier["disk"] == 1)
                #expect(await outcomes.wait("the revalidation the hit started") { $0 == [.changed] })
                #expect(origin.requests("/d.jpg").last?.header("If-None-Match") == "\"a\"")
                let changed = try await server.get(path)
                #expect(try server.decode(changed).pixelSize.width == 160, "the new image")
                #expect(changed.header("ETag") != made.header("ETag"))
                #expect(changed.header("Last-Modified") == Self.remodified)
                #expect(server.server.metrics.resultsByTier["made"] == 1)
            }
            // After another restart the new version's record and result are found on disk.
            try await withImageServer(settings) { server in
                let again = try await server.get(path)
                #expect(again.body != made.body)
                #expect(again.header("Last-Modified") == Self.remodified)
                #expect(server.server.metrics.resultsByTier["disk"] == 1)
            }
            #expect(origin.requestCount("/d.jpg") == 2)
        }
    }

    @Test func aResultsMaxAgeIsItsOriginsWithinTheFloorAndTheCeilingAndCountsDown() async throws {
        try await withTestOrigin { origin in
            let clock = Watched<Int64>(4_000_000)
            for (path, control) in [("/long.jpg", "public, max-age=999999"), ("/short.jpg", "max-age=3")] {
                var route = TestOriginRoute.data(wide, contentType: "image/jpeg")
                route.headers = [("Cache-Control", control)]
                origin.setRoute(path, route)
            }
            let long = "/insecure/w:50/plain/http://127.0.0.1:\(origin.port)/long.jpg@png"
            let short = "/insecure/w:50/plain/http://127.0.0.1:\(origin.port)/short.jpg@png"
            try await withImageServer(freshnessServerConfiguration(clock)) { server in
                let ceiling = try await server.get(long)
                #expect(ceiling.header("Cache-Control") == "public, max-age=1000", "the ceiling")
                let floor = try await server.get(short)
                #expect(floor.header("Cache-Control") == "public, max-age=10", "the floor")
                clock.update { $0 += 400 }
                let later = try await server.get(long)
                #expect(later.header("Cache-Control") == "public, max-age=600", "counting down")
            }
            try await withImageServer(freshnessServerConfiguration(clock) { $0.ttl = 50 }) { server in
                let capped = try await server.get(long)
                #expect(capped.header("Cache-Control") == "public, max-age=50", "--ttl")
            }
        }
    }
}
