import AsyncHTTPClient
import Foundation
import Testing
@testable import WebImage

/// `webimage serve` as a process: it prints where it listens, and SIGTERM lets the request in
/// flight finish before the process exits 0.
@Suite("Server: the process")
struct ServerProcessTests {
    @Test func sigtermLetsTheRequestInFlightFinishThenExitsZero() async throws {
        let executable = try #require(webimageExecutable(), "build the webimage executable (swift build) first")
        let photo = Array(try JPEGFixtures.encode(TestBitmaps.gradient(width: 200, height: 150)))
        let scratch = try CLIProcess.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: scratch) }
        try await withTestOrigin { origin in
            let gate = TestGate()
            var held = TestOriginRoute.data(photo, contentType: "image/jpeg")
            held.mode = .gated(100, gate)
            origin.setRoute("/slow.jpg", held)
            let child = try ChildProcess(executable.path,
                                         ["serve", "--port", "0", "--allow-private-sources",
                                          "--cache-dir", scratch.path, "--log-level", "error"],
                                         stdout: .pipe, stderr: .file(scratch.appendingPathComponent("stderr").path))
            let banner = await offThePool { String(decoding: child.readAvailableStdout(), as: UTF8.self) }
            let port = try #require(banner.split(separator: ":").last.flatMap { Int($0.prefix { $0.isNumber }) },
                                    "no port in \(banner)")
            // A refused connection fails at once instead of being tried again until the timeout.
            var configuration = HTTPClient.Configuration()
            configuration.connectionPool.retryConnectionEstablishment = false
            let client = HTTPClient(eventLoopGroupProvider: .singleton, configuration: configuration)
            let request = HTTPClientRequest(
                url: "http://127.0.0.1:\(port)/insecure/w:100/plain/http://127.0.0.1:\(origin.port)/slow.jpg")
            async let inFlight = client.execute(request, timeout: .seconds(60))
            // The source is being fetched (and held at the origin) when the server is told to stop.
            await origin.waitForRequest("/slow.jpg")
            child.send(SIGTERM)
            // The server has begun its shutdown, with the request still in flight, before the
            // origin lets the source go.
            let stopping = await offThePool { String(decoding: child.readAvailableStdout(), as: UTF8.self) }
            #expect(stopping.contains("stopping; 1 request(s) in flight"), "\(stopping)")
            gate.open()
            let response = try await inFlight
            #expect(response.status.code == 200)
            var body = 0
            for try await chunk in response.body { body += chunk.readableBytes }
            #expect(body > 0)
            let termination = await offThePool { child.wait() }
            #expect(termination.status == 0)
            // Stopped: nothing listens any more.
            await #expect(throws: (any Error).self) {
                _ = try await client.execute(HTTPClientRequest(url: "http://127.0.0.1:\(port)/health"), timeout: .seconds(10))
            }
            try await client.shutdown()
        }
    }
}
