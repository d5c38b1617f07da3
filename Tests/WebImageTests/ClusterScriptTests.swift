import Foundation
import Testing

/// Whether the servers `scripts/cluster` starts are installed.
private var clusterToolsInstalled: Bool {
    ["/usr/bin/redis-server", "/usr/bin/redis-cli", "/usr/sbin/nginx"].allSatisfy { FileManager.default.isExecutableFile(atPath: $0) }
}

/// `scripts/cluster` stops everything it started before it exits, Redis included (which it starts
/// daemonized, so it is no child the script can `wait` for).
@Suite("scripts/cluster", .enabled(if: clusterToolsInstalled,
                                   "needs redis-server, redis-cli and nginx (scripts/install-deps)"))
struct ClusterScriptTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent()

    /// Running processes named `name` whose working directory is `directory` (Redis overwrites
    /// its environment with its process title, but keeps the directory it was started in).
    static func processes(named name: String, in directory: String) -> [Int] {
        let ids = ((try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? []).compactMap(Int.init)
        return ids.filter { id in
            guard let comm = try? String(contentsOfFile: "/proc/\(id)/comm", encoding: .utf8),
                  comm.trimmingCharacters(in: .whitespacesAndNewlines) == name,
                  (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/\(id)/cwd")) == directory,
                  let stat = try? String(contentsOfFile: "/proc/\(id)/stat", encoding: .utf8),
                  let close = stat.lastIndex(of: ")") else { return false }
            return !stat[stat.index(after: close)...].trimmingCharacters(in: .whitespaces).hasPrefix("Z")
        }
    }

    @Test func theRedisItStartedIsGoneWhenItExits() async throws {
        let webimage = try #require(webimageExecutable(), "build the webimage executable first")
        let sandbox = FileManager.default.temporaryDirectory.appendingPathComponent("webimage-cluster-test-\(UUID().uuidString)")
        let bin = sandbox.appendingPathComponent("bin"), tmp = sandbox.appendingPathComponent("tmp")
        try FileManager.default.createDirectory(at: bin, withIntermediateDirectories: true)
        try FileManager.default.createDirectory(at: tmp, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: sandbox) }
        // A redis-cli whose SHUTDOWN answers before Redis has stopped (as on a loaded machine):
        // the script must still not exit while that Redis runs.
        let slowShutdown = """
            #!/bin/sh
            for argument in "$@"; do
                if [ "$argument" = shutdown ]; then
                    (sleep 1; /usr/bin/redis-cli "$@") >/dev/null 2>&1 &
                    exit 0
                fi
            done
            exec /usr/bin/redis-cli "$@"
            """
        let cli = bin.appendingPathComponent("redis-cli")
        try slowShutdown.write(to: cli, atomically: true, encoding: .utf8)
        try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: cli.path)

        var environment = ProcessInfo.processInfo.environment
        environment["PATH"] = bin.path + ":" + (environment["PATH"] ?? "/usr/bin:/bin")
        environment["TMPDIR"] = tmp.path
        let script = Self.root.appendingPathComponent("scripts/cluster").path
        // Started in the sandbox, so the processes it starts are found by their directory.
        let child = try ChildProcess("/bin/bash", ["-c", "cd \"$0\" && exec /bin/bash \"$@\"", sandbox.path, script,
                                                   "--scenario", "steady", "--requests", "6", "--concurrency", "2",
                                                   "--sources", "1", "--bin", webimage.path],
                                     environment: environment, stdout: .file(sandbox.appendingPathComponent("out.txt").path),
                                     stderr: .file(sandbox.appendingPathComponent("err.txt").path))
        let ended = await offThePool { child.wait() }
        let errors = (try? String(contentsOf: sandbox.appendingPathComponent("err.txt"), encoding: .utf8)) ?? ""
        #expect(ended == .exited(0), "scripts/cluster failed: \(errors)")
        #expect(Self.processes(named: "redis-server", in: sandbox.path).isEmpty,
                "a redis-server the script started outlived it")
    }
}
