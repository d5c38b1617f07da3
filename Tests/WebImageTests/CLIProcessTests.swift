import Foundation
import Synchronization
import Testing
@testable import WebImage
@testable import WebImageCodecs
@testable import WebImageLoading

/// What one run of the built `webimage` produced.
struct CLIRun {
    let status: Int32
    let stdout: String
    let stderr: String

    var lines: [String] { stdout.split(separator: "\n").map(String.init) }

    /// Line `index` of stdout parsed as a JSON object.
    func object(_ index: Int) throws -> [String: Any] {
        let line = try #require(index < lines.count ? lines[index] : nil, "no stdout line \(index): \(stdout) \(stderr)")
        return try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
    }
}

/// Runs the built CLI without blocking the test's threads (the loopback origin serves on the
/// same cooperative pool), with its own cache home so it never touches the user's cache.
enum CLIProcess {
    /// `environment` overrides the inherited variables after `XDG_CACHE_HOME` is set to a scratch
    /// folder; a nil value removes the variable.
    static func run(_ arguments: [String], environment overrides: [String: String?] = [:],
                    timeout: Duration = .seconds(120)) async throws -> CLIRun {
        try await start(arguments, environment: overrides, timeout: timeout).finish()
    }

    /// Starts the CLI and returns at once; ``CLIChild/finish()`` waits for it to exit.
    static func start(_ arguments: [String], environment overrides: [String: String?] = [:],
                      timeout: Duration = .seconds(120)) throws -> CLIChild {
        let executable = try #require(webimageExecutable(), "build the webimage executable (swift build) first")
        let scratch = FileManager.default.temporaryDirectory.appendingPathComponent("webimage-cli-run-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: scratch, withIntermediateDirectories: true)
        let outPath = scratch.appendingPathComponent("stdout").path, errPath = scratch.appendingPathComponent("stderr").path
        var environment = ProcessInfo.processInfo.environment
        environment["XDG_CACHE_HOME"] = scratch.appendingPathComponent("xdg").path
        for (name, value) in overrides { environment[name] = value }
        let child: ChildProcess
        do {
            child = try ChildProcess(executable.path, arguments, environment: environment,
                                     stdout: .file(outPath), stderr: .file(errPath))
        } catch {
            try? FileManager.default.removeItem(at: scratch)
            throw error
        }
        // A watchdog, not a wait: a child still running after `timeout` is stopped (on a dispatch
        // timer, so a busy cooperative pool cannot delay it).
        let watchdogBox = CLIChild.Watchdog()
        DispatchQueue.global().asyncAfter(deadline: .now() + .nanoseconds(Int(timeout.nanosecondCount))) {
            if watchdogBox.isArmed { child.send(SIGTERM) }
        }
        return CLIChild(child: child, watchdog: watchdogBox, scratch: scratch, outPath: outPath, errPath: errPath)
    }

    /// A fresh directory for one test's cache and outputs; the caller removes it.
    static func temporaryDirectory() throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("webimage-cli-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }

    /// The quadrants picture (64×48) as PNG bytes.
    static func pngFixture(width: Int = 64, height: Int = 48) throws -> [UInt8] {
        [UInt8](try CodersManager.shared.encode(Image(bitmap: TestBitmaps.quadrants(width: width, height: height)),
                                                as: .png, options: .default))
    }
}

/// A running CLI process started by ``CLIProcess/start(_:environment:timeout:)``.
struct CLIChild: Sendable {
    /// Whether the watchdog may still stop the process.
    final class Watchdog: Sendable {
        private let armed = Mutex(true)
        var isArmed: Bool { armed.withLock { $0 } }
        func disarm() { armed.withLock { $0 = false } }
    }

    fileprivate let child: ChildProcess
    fileprivate let watchdog: Watchdog
    fileprivate let scratch: URL
    fileprivate let outPath: String
    fileprivate let errPath: String

    /// Asks the process to stop (SIGTERM).
    func terminate() { child.send(SIGTERM) }

    /// Waits for the process to exit and returns what it printed.
    func finish() async -> CLIRun {
        let termination = await offThePool { child.wait() }
        watchdog.disarm()
        defer { try? FileManager.default.removeItem(at: scratch) }
        return CLIRun(status: termination.status,
                      stdout: String(decoding: ChildProcess.readFile(outPath), as: UTF8.self),
                      stderr: String(decoding: ChildProcess.readFile(errPath), as: UTF8.self))
    }
}

@Suite("CLI process")
struct CLIProcessTests {
    @Test func versionAndHelpExitZero() async throws {
        let version = try await CLIProcess.run(["--version"])
        #expect(version.status == 0)
        #expect(version.stdout.contains(WebImageVersion.string))
        let help = try await CLIProcess.run(["get", "--help"])
        #expect(help.status == 0)
        #expect(help.stdout.contains("--transform"))
    }
}
