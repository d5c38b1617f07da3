import AsyncHTTPClient
import Foundation
import Testing
@testable import WebImage

/// `webimage serve` as a process: it prints where it listens, and SIGTERM stops new connections
/// and lets the request in flight finish before the process exits 0.
@Suite("Server: the process")
struct ServerProcessTests {
    @Test func sigtermRefusesNewConnectionsLetsTheRequestInFlightFinishThenExitsZero() async throws {
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
                                          "--source-timeout", "\(Int(TestTimeout.download))",
                                          "--request-timeout", "\(Int(TestTimeout.seconds))",
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
            async let inFlight = client.execute(request, timeout: .seconds(Int64(TestTimeout.seconds)))
            // The source is being fetched (and held at the origin) when the server is told to stop.
            await origin.waitForRequest("/slow.jpg")
            child.send(SIGTERM)
            // The server has begun its shutdown, with the request still in flight, before the
            // origin lets the source go.
            let stopping = await offThePool { String(decoding: child.readAvailableStdout(), as: UTF8.self) }
            #expect(stopping.contains("stopping; 1 request(s) in flight"), "\(stopping)")
            // Draining: the listener is closed, so a new connection is refused at once while the
            // request in flight goes on.
            await #expect(throws: (any Error).self) {
                _ = try await client.execute(HTTPClientRequest(url: "http://127.0.0.1:\(port)/health"), timeout: .seconds(10))
            }
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

    @Test func jsonLogLinesNameEachRequestByTheIDItWasAnsweredWith() async throws {
        let executable = try #require(webimageExecutable(), "build the webimage executable (swift build) first")
        let photo = Array(try JPEGFixtures.encode(TestBitmaps.gradient(width: 200, height: 150)))
        let scratch = try CLIProcess.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: scratch) }
        let stderrPath = scratch.appendingPathComponent("stderr").path
        try await withTestOrigin { origin in
            origin.setRoute("/photo.jpg", .data(photo, contentType: "image/jpeg"))
            let child = try ChildProcess(executable.path,
                                         ["serve", "--port", "0", "--allow-private-sources", "--no-cache",
                                          "--log-format", "json"],
                                         stdout: .pipe, stderr: .file(stderrPath))
            let banner = await offThePool { String(decoding: child.readAvailableStdout(), as: UTF8.self) }
            let port = try #require(banner.split(separator: ":").last.flatMap { Int($0.prefix { $0.isNumber }) },
                                    "no port in \(banner)")
            let client = HTTPClient(eventLoopGroupProvider: .singleton)
            let response = try await client.execute(
                HTTPClientRequest(url: "http://127.0.0.1:\(port)/insecure/w:50/plain/http://127.0.0.1:\(origin.port)/photo.jpg"),
                timeout: .seconds(Int64(TestTimeout.seconds)))
            #expect(response.status.code == 200)
            let id = try #require(response.headers.first(name: "X-Request-ID"))
            try await client.shutdown()
            child.send(SIGTERM)
            #expect(await offThePool { child.wait() }.status == 0)
            let lines = try String(contentsOfFile: stderrPath, encoding: .utf8).split(separator: "\n")
            let objects = lines.compactMap { try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] }
            #expect(objects.count == lines.count, "every line is a JSON object: \(lines)")
            let entry = try #require(objects.first { $0["request_id"] as? String == id }, "no line for \(id): \(lines)")
            #expect(entry["status"] as? String == "200")
            #expect(entry["level"] as? String == "info")
            #expect((entry["path"] as? String)?.hasSuffix("/photo.jpg") == true)
        }
    }
}
