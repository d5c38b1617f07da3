import Foundation
import Testing
@testable import WebImageRedis
#if canImport(Glibc)
import Glibc
#endif

/// A real `redis-server` started by a test on a free loopback port (no persistence), stopped by
/// ``stop()`` or when the value goes away. ``kill()``, ``restart()``, ``pause()`` and ``resume()``
/// are the faults the shared-cache tests inject.
final class RedisTestServer: Sendable {
    static let executable = "/usr/bin/redis-server"

    /// Whether redis-server is installed (`scripts/install-deps` installs it); tests skip without it.
    static var isInstalled: Bool { FileManager.default.isExecutableFile(atPath: executable) }

    let port: Int
    private let process: Watched<ChildProcess?>

    private init(port: Int, process: ChildProcess) {
        self.port = port
        self.process = Watched(process)
    }

    /// Starts a server and returns once it accepts connections. A port found free can be taken
    /// before redis-server binds it (another test's outgoing connection may get it as its local
    /// port), so a server that exits before it is ready is tried again on another port.
    static func start() async throws -> RedisTestServer {
        var attempt = 1
        while true {
            let port = try freeLoopbackPort()
            do {
                return RedisTestServer(port: port, process: try await launch(port: port))
            } catch RedisTestServerError.didNotStart where attempt < 5 {
                attempt += 1
            }
        }
    }

    /// A configuration for a client of this server.
    func configuration(_ adjust: (inout RedisConfiguration) -> Void = { _ in }) -> RedisConfiguration {
        var configuration = RedisConfiguration(host: "127.0.0.1", port: port)
        // A parallel run on two cores can hold a reply back for most of the run (see
        // ``TestTimeout``); only an upper bound, so passing runs are no slower. The timeout tests
        // set their own.
        configuration.connectTimeoutMilliseconds = Int(TestTimeout.seconds * 1000)
        configuration.operationTimeoutMilliseconds = Int(TestTimeout.seconds * 1000)
        adjust(&configuration)
        return configuration
    }

    /// SIGKILL, and waits until the process is gone (its port refuses connections).
    func kill() async {
        guard let child = process.update({ current -> ChildProcess? in defer { current = nil }; return current }) else { return }
        child.send(SIGKILL)
        await offThePool { _ = child.wait() }
    }

    /// A new server on the same port (after ``kill()``), empty.
    func restart() async throws {
        await kill()
        let child = try await Self.launch(port: port)
        process.update { $0 = child }
    }

    /// SIGSTOP: the server keeps its port and accepts connections, but answers nothing.
    func pause() { process.value?.send(SIGSTOP) }

    /// SIGCONT after ``pause()``.
    func resume() { process.value?.send(SIGCONT) }

    /// Stops the server and waits for it.
    func stop() async {
        resume()
        await kill()
    }

    private static func launch(port: Int) async throws -> ChildProcess {
        let child = try ChildProcess(executable, ["--port", String(port), "--bind", "127.0.0.1", "--save", "",
                                                  "--appendonly", "no", "--protected-mode", "no",
                                                  "--loglevel", "notice"],
                                     stdout: .pipe, stderr: .null)
        // Ready when it says so on stdout (no polling of the port).
        let ready = await offThePool { () -> Bool in
            var seen = ""
            while true {
                let chunk = child.readAvailableStdout()
                if chunk.isEmpty { return false }
                seen += String(decoding: chunk, as: UTF8.self)
                if seen.contains("Ready to accept connections") { return true }
                if seen.count > 100_000 { seen = String(seen.suffix(1000)) }
            }
        }
        guard ready else { throw RedisTestServerError.didNotStart(port) }
        // Keep draining its log so the pipe never fills and blocks the server.
        Thread { while !child.readAvailableStdout().isEmpty {} }.start()
        return child
    }

    /// A port nothing listens on now: bound to 127.0.0.1:0, read back, closed.
    static func freeLoopbackPort() throws -> Int {
        let (fd, port) = try boundLoopbackSocket()
        close(fd)
        return port
    }

    /// A loopback port that refuses connections for as long as the returned socket stays open: it
    /// is bound (so no other test can take it) but not listening. Close the socket when done.
    static func refusingLoopbackPort() throws -> (socket: Int32, port: Int) {
        try boundLoopbackSocket()
    }

    private static func boundLoopbackSocket() throws -> (Int32, Int) {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw RedisTestServerError.noPort }
        var keep = false
        defer { if !keep { close(fd) } }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = 0
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { socketAddress in
                bind(fd, socketAddress, length) == 0 && getsockname(fd, socketAddress, &length) == 0
            }
        }
        guard bound else { throw RedisTestServerError.noPort }
        keep = true
        return (fd, Int(UInt16(bigEndian: address.sin_port)))
    }
}

enum RedisTestServerError: Error, CustomStringConvertible {
    case didNotStart(Int)
    case noPort

    var description: String {
        switch self {
        case .didNotStart(let port): "redis-server did not start on port \(port)"
        case .noPort: "no free loopback port"
        }
    }
}

/// Runs `body` with a fresh redis-server, stopping it afterwards (also when `body` throws).
func withRedisServer<T: Sendable>(_ body: (RedisTestServer) async throws -> T) async throws -> T {
    let server = try await RedisTestServer.start()
    do {
        let result = try await body(server)
        await server.stop()
        return result
    } catch {
        await server.stop()
        throw error
    }
}

/// A clock for the breaker that moves only when told (nanoseconds).
final class ManualNanoClock: Sendable {
    private let value = Watched<UInt64>(1_000_000_000)
    var now: UInt64 { value.value }
    func advance(milliseconds: Int) { value.update { $0 += UInt64(milliseconds) * 1_000_000 } }
}

/// The breaker's transitions as they happen, for tests to wait on.
final class BreakerLog: Sendable {
    let states = Watched<[RedisBreaker.State]>([])
    var record: @Sendable (RedisBreaker.State, RedisBreaker.State) -> Void {
        { [states] _, new in states.update { $0.append(new) } }
    }

    /// Waits until the breaker has entered `state` `count` times in all.
    @discardableResult
    func wait(for state: RedisBreaker.State, count: Int = 1, sourceLocation: SourceLocation = #_sourceLocation) async -> Bool {
        await states.wait("the breaker to be \(state) \(count) time(s)", sourceLocation: sourceLocation) {
            $0.filter { $0 == state }.count >= count
        }
    }
}
