import Foundation
import Testing
@testable import WebImage
@testable import WebImageCodecs
@testable import WebImageLoading

/// `--deny-private-addresses` and its allow-list, end to end through the built CLI against the
/// loopback origin.
@Suite("CLI safe-fetch guard")
struct CLIGuardTests {
    @Test func aLoopbackURLIsRefusedWithForbiddenAddress() async throws {
        let dir = try CLIProcess.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        try await withTestOrigin { origin in
            origin.setRoute("/a.png", .data(try CLIProcess.pngFixture(), contentType: "image/png"))
            let run = try await CLIProcess.run(["get", "--deny-private-addresses", origin.url("/a.png").absoluteString,
                                                "--cache-dir", dir.path, "--json"])
            #expect(run.status == 1, "\(run.stderr)")
            let error = try #require(try run.object(0)["error"] as? [String: Any])
            #expect(error["name"] as? String == "forbiddenAddress")
            #expect((error["message"] as? String)?.contains("127.0.0.1") == true, "\(error)")
            #expect(origin.stats.connectionsAccepted == 0, "refused before connecting, and not retried")
        }
    }

    @Test func theAllowListLetsTheOriginThrough() async throws {
        let dir = try CLIProcess.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        try await withTestOrigin { origin in
            origin.setRoute("/a.png", .data(try CLIProcess.pngFixture(), contentType: "image/png"))
            let run = try await CLIProcess.run(["get", origin.url("/a.png").absoluteString, "--deny-private-addresses",
                                                "--allow-network", "127.0.0.1/32", "--cache-dir", dir.path, "--json"])
            #expect(run.status == 0, "\(run.stderr)")
            #expect(try run.object(0)["ok"] as? Bool == true)
            #expect(origin.requestCount("/a.png") == 1)
        }
    }
}
