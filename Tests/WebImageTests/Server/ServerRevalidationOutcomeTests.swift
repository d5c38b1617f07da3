import Foundation
import Testing
@testable import WebImage
@testable import WebImageServer

/// What a revalidation does when the origin no longer has the source (404: the source and its
/// results are dropped, as a purge drops them) or does not answer (the stale result goes on being
/// served, and the source is asked again after the freshness floor).
@Suite("Server: revalidation outcomes")
struct ServerRevalidationOutcomeTests {
    let photo: [UInt8] = Array(try! JPEGFixtures.encode(TestBitmaps.gradient(width: 120, height: 90)))

    @Test func aSourceGoneFromItsOriginIsDroppedWithItsResults() async throws {
        try await withTestOrigin { origin in
            let clock = Watched<Int64>(1_000_000)
            origin.setRoute("/g.jpg", .data(photo, contentType: "image/jpeg"))
            try await withImageServer(freshnessServerConfiguration(clock)) { server in
                let outcomes = server.revalidationOutcomes()
                let path = "/insecure/w:60/plain/http://127.0.0.1:\(origin.port)/g.jpg@png"
                let made = try await server.get(path)
                origin.setRoute("/g.jpg", TestOriginRoute(status: 404, contentType: "text/plain"))
                clock.update { $0 += 101 }
                let stale = try await server.get(path)
                #expect(stale.body == made.body)
                #expect(await outcomes.wait("the revalidation") { $0 == [.gone] })
                #expect(server.server.pipeline.states.known("http://127.0.0.1:\(origin.port)/g.jpg") == nil)
                let gone = try await server.get(path)
                #expect(gone.status == 404)
                #expect(origin.requestCount("/g.jpg") == 3, "the first fetch, the revalidation, and a fetch after it")
            }
        }
    }

    @Test func anOriginThatFailsIsAskedAgainAfterTheFloorWhileTheStaleResultIsServed() async throws {
        try await withTestOrigin { origin in
            let clock = Watched<Int64>(2_000_000)
            origin.setRoute("/f.jpg", .data(photo, contentType: "image/jpeg"))
            try await withImageServer(freshnessServerConfiguration(clock)) { server in
                let outcomes = server.revalidationOutcomes()
                let path = "/insecure/w:60/plain/http://127.0.0.1:\(origin.port)/f.jpg@png"
                let made = try await server.get(path)
                origin.setRoute("/f.jpg", TestOriginRoute(status: 503, contentType: "text/plain"))
                clock.update { $0 += 101 }
                #expect(try await server.get(path).body == made.body)
                #expect(await outcomes.wait("the revalidation") { $0 == [.failed] })

                // Within the floor: served, and not asked again.
                clock.update { $0 += 9 }
                let within = try await server.get(path)
                #expect(within.body == made.body)
                #expect(within.header("Cache-Control") == "public, max-age=10")
                #expect(origin.requestCount("/f.jpg") == 2)
                #expect(server.server.pipeline.states.revalidationsInFlight == 0)

                // Past it: asked again; the origin is back, with the same bytes.
                origin.setRoute("/f.jpg", .data(photo, contentType: "image/jpeg"))
                clock.update { $0 += 1 }
                #expect(try await server.get(path).body == made.body)
                #expect(await outcomes.wait("the second revalidation") { $0 == [.failed, .unchanged] })
                #expect(origin.requestCount("/f.jpg") == 3)
            }
        }
    }
}
