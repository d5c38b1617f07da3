import Foundation
import Testing
@testable import WebImage

/// `webimage serve` under a low open-file limit (set by the shell that starts it): a flood of
/// connections is refused cleanly, and the server answers `/health` once the flood ends.
@Suite("Server: the open-file limit")
struct ServerFileLimitTests {
    /// The CLI with its open-file limit lowered to `limit`, its log on stdout with its banner;
    /// the child and its port.
    private func serve(limit: Int, _ arguments: [String]) async throws -> (ChildProcess, Int) {
        let executable = try #require(webimageExecutable(), "build the webimage executable (swift build) first")
        let child = try ChildProcess("/bin/sh", ["-c", "ulimit -n \(limit) && exec \"$0\" \"$@\" 2>&1", executable.path,
                                                 "serve", "--port", "0", "--no-cache"] + arguments,
                                     stdout: .pipe)
        let banner = await readStdout(of: child, until: "webimage serve: listening on http://127.0.0.1:")
        let after = banner.components(separatedBy: "webimage serve: listening on http://127.0.0.1:").dropFirst().first
        let port = try #require(after.flatMap { Int($0.prefix { $0.isNumber }) }, "no port in \(banner)")
        return (child, port)
    }

    /// The child's output until it contains `text` (or ends).
    private func readStdout(of child: ChildProcess, until text: String) async -> String {
        await offThePool {
            var output = ""
            while !output.contains(text) {
                let chunk = child.readAvailableStdout()
                if chunk.isEmpty { break }
                output += String(decoding: chunk, as: UTF8.self)
            }
            return output
        }
    }

    @Test func pastTheLimitAcceptFailsQuietlyIsLoggedAndTheServerRecovers() async throws {
        // No connection limit of the server's own: the accepts themselves fail (EMFILE).
        let (child, port) = try await serve(limit: 128, ["--max-connections", "100000"])
        var flood: [RawSocket] = []
        for _ in 0..<200 { flood.append(try RawSocket(port: port)) }
        let log = await readStdout(of: child, until: "accepting connections failed")
        #expect(log.contains("accepting connections failed"), "\(log)")
        #expect(log.lowercased().contains("too many open files"), "\(log)")
        flood.removeAll()
        // The flood's connections are gone: accepting resumes and the server answers.
        let socket = try RawSocket(port: port)
        try socket.send("GET /health HTTP/1.1\r\nHost: a\r\n\r\n")
        #expect(try await socket.readResponse().status == 200)
        child.send(SIGTERM)
        #expect(await offThePool { child.wait() }.status == 0)
    }

    @Test func theDefaultConnectionLimitKeepsFilesForTheServerAndRefusesTheRestWith503() async throws {
        // The limit the server derives from 128 open files: 64 connections. The read timeout is
        // far beyond the test's length (instrumented too), so the held connection is still open.
        let (child, port) = try await serve(limit: 128, ["--read-timeout", "600"])
        var flood: [RawSocket] = []
        for _ in 0..<100 { flood.append(try RawSocket(port: port)) }
        // Accepted after the whole flood, past the limit.
        let last = try RawSocket(port: port)
        let ending = await last.waitForClose()
        #expect(ending.text.hasPrefix("HTTP/1.1 503 "), "\(ending.text)")
        let log = await readStdout(of: child, until: "connection refused")
        #expect(log.contains("max_connections=64"), "\(log)")
        // A connection held during the flood is served.
        try flood[0].send("GET /health HTTP/1.1\r\nHost: a\r\n\r\n")
        #expect(try await flood[0].readResponse().status == 200)
        flood.removeAll()
        #expect(try await healthAfterRefusals(port: port) == 200)
        child.send(SIGTERM)
        #expect(await offThePool { child.wait() }.status == 0)
    }
}
