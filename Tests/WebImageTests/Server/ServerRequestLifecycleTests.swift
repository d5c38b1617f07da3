import Foundation
import Testing
@testable import WebImage
@testable import WebImageServer

/// What happens around a request: its id, its time limit, the disk tier of results, and the
/// answer to a request that arrives while the server drains.
@Suite("Server: request lifecycle")
struct ServerRequestLifecycleTests {
    let photo: [UInt8] = Array(try! JPEGFixtures.encode(TestBitmaps.gradient(width: 400, height: 300)))

    @Test func everyAnswerCarriesARequestIDAndASaneIncomingOneIsKept() async throws {
        try await withImageServer(loopbackServerConfiguration()) { server in
            let first = try await server.get("/health")
            let second = try await server.get("/health")
            let generated = try #require(first.header("X-Request-ID"))
            #expect(RequestID.isSane(generated))
            #expect(second.header("X-Request-ID") != generated)
            let kept = try await server.get("/insecure/bogus:1/plain/http://example.com/a.jpg",
                                            headers: [("X-Request-ID", "edge-7f3a.01")])
            #expect(kept.status == 400)
            #expect(kept.header("X-Request-ID") == "edge-7f3a.01")
            // A value that could forge a log line or a header is replaced.
            let replaced = try await server.get("/health", headers: [("X-Request-ID", "a b\"c")])
            #expect(replaced.header("X-Request-ID") != "a b\"c")
            #expect(RequestID.isSane(try #require(replaced.header("X-Request-ID"))))
        }
    }

    @Test func aRequestOverItsTimeLimitGets504AndTheServerStaysUsable() async throws {
        try await withTestOrigin { origin in
            let gate = TestGate()
            var held = TestOriginRoute.data(photo, contentType: "image/jpeg")
            held.mode = .gated(100, gate)
            origin.setRoute("/held.jpg", held)
            origin.setRoute("/photo.jpg", .data(photo, contentType: "image/jpeg"))
            // The limit is far above what the small photo takes, even instrumented or beside the
            // other server suites (1 s was not); the held source exceeds it by as long as the test
            // wants.
            let configuration = loopbackServerConfiguration {
                $0.requestTimeout = 3 * SanitizerRun.slowdown
                $0.workers = 1
            }
            try await withImageServer(configuration) { server in
                // The source is held at the origin until long after the limit.
                let late = try await server.get("/insecure/w:100/plain/http://127.0.0.1:\(origin.port)/held.jpg")
                #expect(late.status == 504)
                #expect(late.error?.name == "timeout")
                // The abandoned job gave its worker back: another source is served.
                let next = try await server.get("/insecure/w:100/plain/http://127.0.0.1:\(origin.port)/photo.jpg")
                #expect(next.status == 200)
                gate.open()
            }
        }
    }

    @Test func resultsOnDiskOutliveTheServerThatMadeThem() async throws {
        let sandbox = DiskCacheSandbox()
        defer { sandbox.remove() }
        try await withTestOrigin { origin in
            origin.setRoute("/photo.jpg", .data(photo, contentType: "image/jpeg"))
            let configuration = loopbackServerConfiguration { $0.cacheDirectory = sandbox.root }
            let path = "/insecure/rs:fit:120:120/plain/http://127.0.0.1:\(origin.port)/photo.jpg@png"
            let made = try await withImageServer(configuration) { server in
                try await server.get(path)
            }
            #expect(made.status == 200)
            // The source is gone from the origin and from the source cache: only the stored
            // result can answer.
            origin.setRoute("/photo.jpg", .status(404))
            try FileManager.default.removeItem(at: sandbox.root.appendingPathComponent("webimage-serve-sources"))
            try await withImageServer(configuration) { server in
                let again = try await server.get(path)
                #expect(again.status == 200)
                #expect(again.body == made.body)
                #expect(again.header("ETag") == made.header("ETag"))
                #expect(again.header("Content-Type") == "image/png")
                #expect(origin.requestCount("/photo.jpg") == 1)
            }
        }
    }

    @Test func aFullOrVanishedResultDirectoryStillServes() async throws {
        let sandbox = DiskCacheSandbox()
        defer { sandbox.remove() }
        try await withTestOrigin { origin in
            origin.setRoute("/photo.jpg", .data(photo, contentType: "image/jpeg"))
            let configuration = loopbackServerConfiguration { $0.cacheDirectory = sandbox.root }
            try await withImageServer(configuration) { server in
                try FileManager.default.removeItem(at: sandbox.root)
                // A file where the results directory should be: every write fails.
                try FileManager.default.createDirectory(at: sandbox.root, withIntermediateDirectories: true)
                try Data("x".utf8).write(to: sandbox.root.appendingPathComponent("webimage-serve-results"))
                let reply = try await server.get("/insecure/w:80/plain/http://127.0.0.1:\(origin.port)/photo.jpg")
                #expect(reply.status == 200)
                #expect(try server.decode(reply).pixelSize.width == 80)
            }
        }
    }

    @Test func noRequestHeaderReachesTheSource() async throws {
        try await withTestOrigin { origin in
            origin.setRoute("/photo.jpg", .data(photo, contentType: "image/jpeg"))
            try await withImageServer(loopbackServerConfiguration()) { server in
                let reply = try await server.get("/insecure/w:60/plain/http://127.0.0.1:\(origin.port)/photo.jpg",
                                                 headers: [("Cookie", "session=secret"), ("Authorization", "Bearer t"),
                                                           ("X-Forwarded-For", "10.0.0.1"), ("Referer", "https://a.example/")])
                #expect(reply.status == 200)
                let seen = try #require(origin.stats.requests.first { $0.path == "/photo.jpg" })
                for name in ["Cookie", "Authorization", "X-Forwarded-For", "Referer", "X-Request-ID"] {
                    #expect(seen.header(name) == nil, "\(name) reached the source")
                }
            }
        }
    }
}
