import AsyncHTTPClient
import Foundation
import Testing
@testable import WebImage

/// `webimage serve` as a process, around its start and stop: its temporary directory is private
/// and goes with it, and a second signal cuts the graceful drain short.
@Suite("Server: start and stop")
struct ServerStopTests {
    let photo: [UInt8] = Array(try! JPEGFixtures.encode(TestBitmaps.gradient(width: 200, height: 150)))

    /// The port in the CLI's banner.
    private func port(of child: ChildProcess) async throws -> Int {
        let banner = await offThePool { String(decoding: child.readAvailableStdout(), as: UTF8.self) }
        return try #require(banner.split(separator: ":").last.flatMap { Int($0.prefix { $0.isNumber }) },
                            "no port in \(banner)")
    }

    @Test func withoutACacheDirectorySourcesGoToAPrivateDirectoryRemovedAtExit() async throws {
        let executable = try #require(webimageExecutable(), "build the webimage executable (swift build) first")
        let temporary = try CLIProcess.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: temporary) }
        var environment = ProcessInfo.processInfo.environment
        environment["TMPDIR"] = temporary.path
        try await withTestOrigin { origin in
            origin.setRoute("/photo.jpg", .data(photo, contentType: "image/jpeg"))
            let child = try ChildProcess(executable.path, ["serve", "--port", "0", "--allow-private-sources",
                                                          "--log-level", "error"],
                                         environment: environment, stdout: .pipe)
            let port = try await port(of: child)
            let client = HTTPClient(eventLoopGroupProvider: .singleton)
            let response = try await client.execute(
                HTTPClientRequest(url: "http://127.0.0.1:\(port)/insecure/w:50/plain/http://127.0.0.1:\(origin.port)/photo.jpg"),
                timeout: .seconds(Int64(TestTimeout.seconds)))
            #expect(response.status.code == 200)
            try await client.shutdown()
            let entries = try FileManager.default.contentsOfDirectory(atPath: temporary.path)
            #expect(entries.count == 1, "\(entries)")
            let name = try #require(entries.first)
            #expect(name.hasPrefix("webimage-serve-") && name != "webimage-serve-\(child.pid)", "\(name)")
            var status = stat()
            #expect(stat(temporary.appendingPathComponent(name).path, &status) == 0)
            #expect(status.st_mode & 0o777 == 0o700, "mode \(String(status.st_mode & 0o777, radix: 8))")
            child.send(SIGTERM)
            #expect(await offThePool { child.wait() }.status == 0)
            #expect(try FileManager.default.contentsOfDirectory(atPath: temporary.path).isEmpty)
        }
    }

    @Test(arguments: [SIGTERM, SIGINT])
    func aSecondSignalCutsTheDrainShort(second: Int32) async throws {
        let executable = try #require(webimageExecutable(), "build the webimage executable (swift build) first")
        try await withTestOrigin { origin in
            let gate = TestGate()
            defer { gate.open() }
            var held = TestOriginRoute.data(photo, contentType: "image/jpeg")
            held.mode = .gated(100, gate)
            origin.setRoute("/held.jpg", held)
            // A drain long enough that only a cut ends it while the test waits.
            let child = try ChildProcess(executable.path, ["serve", "--port", "0", "--allow-private-sources", "--no-cache",
                                                          "--shutdown-timeout", "600", "--log-level", "error"],
                                         stdout: .pipe)
            let port = try await port(of: child)
            let client = HTTPClient(eventLoopGroupProvider: .singleton)
            let inFlight = Task {
                try await client.execute(
                    HTTPClientRequest(url: "http://127.0.0.1:\(port)/insecure/w:50/plain/http://127.0.0.1:\(origin.port)/held.jpg"),
                    timeout: .seconds(600))
            }
            await origin.waitForRequest("/held.jpg")
            child.send(SIGTERM)
            let stopping = await offThePool { String(decoding: child.readAvailableStdout(), as: UTF8.self) }
            #expect(stopping.contains("stopping; 1 request(s) in flight"), "\(stopping)")
            child.send(second)
            let cut = await offThePool { String(decoding: child.readAvailableStdout(), as: UTF8.self) }
            #expect(cut.contains("second signal; stopping now, 1 request(s) cut short"), "\(cut)")
            // The process ends with the source still held at the origin.
            #expect(await offThePool { child.wait() }.status == 0)
            _ = try? await inFlight.value
            try await client.shutdown()
        }
    }
}
