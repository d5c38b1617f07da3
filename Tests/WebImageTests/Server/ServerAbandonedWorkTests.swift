import AsyncHTTPClient
import Foundation
import Testing
@testable import WebImage
@testable import WebImageServer

/// Work nobody waits for any more stops: a request past its time limit, or whose client hung up,
/// gives its worker back at its next row block, while the result it asked for takes minutes to
/// make in a debug build (a 2000×2000 JPEG enlarged to 8192×8192 and encoded as WebP: 171 s on a
/// loaded 2-core machine, against about a second from the 504 to a free worker). The tests allow
/// 5 s, for a loaded machine running other suites beside them.
@Suite("Server: abandoned work stops")
struct ServerAbandonedWorkTests {
    static let heavy = "rs:fit:8192:8192:1/f:webp"

    /// Waits for the last admitted request to end, then checks that `/health` shows every worker
    /// free; the time the wait took.
    private func timeUntilIdle(_ server: ServerHarness) async throws -> Duration {
        let start = ContinuousClock.now
        await server.server.pipeline.limiter.untilIdle()
        let waited = ContinuousClock.now - start
        let health = try await server.get("/health")
        let object = try #require(try JSONSerialization.jsonObject(with: health.body) as? [String: Any])
        #expect(object["workers_busy"] as? Int == 0)
        #expect(object["queued"] as? Int == 0)
        return waited
    }

    private func withHeavySource(requestTimeout: Double,
                                 _ body: @Sendable (ServerHarness, String) async throws -> Void) async throws {
        let big = Array(try JPEGFixtures.encode(TestBitmaps.gradient(width: 2000, height: 2000)))
        try await withTestOrigin { origin in
            origin.setRoute("/big.jpg", .data(big, contentType: "image/jpeg"))
            let configuration = loopbackServerConfiguration {
                $0.requestTimeout = requestTimeout
                $0.workers = 1
                $0.maxResultDimension = 8192
            }
            try await withImageServer(configuration) { server in
                try await body(server, "/insecure/\(Self.heavy)/plain/http://127.0.0.1:\(origin.port)/big.jpg")
            }
        }
    }

    @Test func aRequestPastItsTimeLimitFreesItsWorker() async throws {
        try await withHeavySource(requestTimeout: 0.5 * SanitizerRun.slowdown) { server, path in
            let reply = try await server.get(path)
            #expect(reply.status == 504)
            let idle = try await timeUntilIdle(server)
            #expect(idle < .seconds(5) * SanitizerRun.slowdown, "the worker was busy \(idle) after the 504")
        }
    }

    @Test func aRequestWhoseClientHungUpFreesItsWorker() async throws {
        try await withHeavySource(requestTimeout: 0) { server, path in
            // The client gives up after a moment: its connection is closed under the request.
            var request = HTTPClientRequest(url: "http://127.0.0.1:\(server.port)\(path)")
            request.method = .GET
            await #expect(throws: (any Error).self) {
                _ = try await server.client.execute(request, timeout: .milliseconds(Int64(300 * SanitizerRun.slowdown)))
            }
            let idle = try await timeUntilIdle(server)
            #expect(idle < .seconds(5) * SanitizerRun.slowdown, "the worker was busy \(idle) after the client left")
            #expect(server.server.departures.count <= 1)
        }
    }

    @Test func largeAVIFResultsAreEncodedInAChildProcess() async throws {
        let executable = try #require(webimageExecutable(), "build the webimage executable first")
        let photo = Array(try JPEGFixtures.encode(TestBitmaps.gradient(width: 400, height: 300)))
        try await withTestOrigin { origin in
            origin.setRoute("/photo.jpg", .data(photo, contentType: "image/jpeg"))
            let configuration = loopbackServerConfiguration {
                $0.encoderProcess = EncoderProcess(executable: executable.path, minimumPixels: 10_000)
            }
            try await withImageServer(configuration) { server in
                let reply = try await server.get("/insecure/f:avif/plain/http://127.0.0.1:\(origin.port)/photo.jpg")
                #expect(reply.status == 200)
                #expect(reply.header("Content-Type") == "image/avif")
                #expect(try AVIFCoder().decode(reply.body, options: .default).bitmap.size == PixelSize(width: 400, height: 300))
            }
        }
    }
}
