import AsyncHTTPClient
import Foundation
import Testing
@testable import WebImage

/// `webimage serve` follows this machine's memory pressure unless told `--memory-pressure off`:
/// `/health` names the file it watches, and SIGTERM stops the watching thread with the server.
///
/// The survival run under a cgroup `memory.max` is not among them: where it was written,
/// memory is a cgroup v1 controller (v2 has no `memory.max` or `memory.events` there) and there is
/// no swap, so a child over its v1 limit is OOM-killed with its v2 `memory.pressure` still at 0
/// (tried: 100 MB limit, 4 MB steps, `total=0` up to the kill), leaving nothing to react to.
@Suite("Server: memory pressure in the process")
struct ServerProcessMemoryPressureTests {
    /// The `memory.pressure` object of a `webimage serve` started with `arguments`, after which
    /// the process is stopped with SIGTERM and must exit 0.
    private func pressureHealth(_ arguments: [String]) async throws -> [String: Any] {
        let executable = try #require(webimageExecutable(), "build the webimage executable (swift build) first")
        let scratch = try CLIProcess.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: scratch) }
        let child = try ChildProcess(executable.path, ["serve", "--port", "0", "--no-cache", "--log-level", "error"] + arguments,
                                     stdout: .pipe, stderr: .file(scratch.appendingPathComponent("stderr").path))
        let banner = await offThePool { String(decoding: child.readAvailableStdout(), as: UTF8.self) }
        let port = try #require(banner.split(separator: ":").last.flatMap { Int($0.prefix { $0.isNumber }) },
                                "no port in \(banner)")
        let client = HTTPClient(eventLoopGroupProvider: .singleton)
        let outcome: Result<[String: Any], any Error>
        do {
            let response = try await client.execute(HTTPClientRequest(url: "http://127.0.0.1:\(port)/health"),
                                                    timeout: .seconds(Int64(TestTimeout.seconds)))
            let body = try await response.body.collect(upTo: 1 << 20)
            let object = try JSONSerialization.jsonObject(with: Data(body.readableBytesView)) as? [String: Any]
            let memory = object?["memory"] as? [String: Any]
            outcome = .success(try #require(memory?["pressure"] as? [String: Any]))
        } catch {
            outcome = .failure(error)
        }
        try await client.shutdown()
        child.send(SIGTERM)
        #expect(await offThePool { child.wait() }.status == 0, "the server and its watching thread stop")
        return try outcome.get()
    }

    @Test func byDefaultTheServerWatchesThisMachinesPressure() async throws {
        let pressure = try await pressureHealth([])
        #expect(pressure["enabled"] as? Bool == true)
        #expect(["none", "some", "full"].contains(pressure["level"] as? String ?? ""))
        let watching = try #require(pressure["watching"] as? String)
        if MemoryPressureSourceTests.systemTakesTriggers {
            #expect(watching.contains("memory.pressure"), "\(watching)")
        } else {
            // Without PSI triggers (and outside a cgroup with memory.events) there is nothing to watch.
            #expect(watching == "none" || watching.hasSuffix("memory.events"), "\(watching)")
        }
    }

    @Test func memoryPressureOffLeavesItAlone() async throws {
        let pressure = try await pressureHealth(["--memory-pressure", "off"])
        #expect(pressure["enabled"] as? Bool == false)
    }
}
