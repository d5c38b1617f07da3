import Foundation
import Testing

/// The fuzz targets compile the image layer (Sources/WebImageCodecs) with swiftc on its own
/// (Fuzz/build.sh), outside SwiftPM; this test type-checks it that way so `make fuzz` cannot break
/// unnoticed (for example through a flag SwiftPM passes and the script does not).
@Suite("Fuzz source list")
struct FuzzSourceListTests {
    /// The repository root: three levels above this file (Tests/WebImageTests/…).
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent()

    /// `swiftc` on the PATH, or nil (then the test is skipped).
    static let swiftc: String? = (ProcessInfo.processInfo.environment["PATH"] ?? "")
        .split(separator: ":")
        .map { "\($0)/swiftc" }
        .first { FileManager.default.isExecutableFile(atPath: $0) }

    @Test(.enabled(if: swiftc != nil, "swiftc is not on the PATH"),
          .disabled(if: SanitizerRun.name != nil, "the plain run already checks the list"))
    func codecSourcesTypeCheckOnTheirOwn() async throws {
        let script = Self.root.appendingPathComponent("Fuzz/build.sh").path
        try #require(FileManager.default.isExecutableFile(atPath: script), "no \(script)")
        let log = FileManager.default.temporaryDirectory.appendingPathComponent("fuzz-typecheck-\(UUID().uuidString).log").path
        defer { try? FileManager.default.removeItem(atPath: log) }
        let child = try ChildProcess("/bin/bash", [script, "typecheck"], stdout: .null, stderr: .file(log))
        let termination = await offThePool { child.wait() }
        let output = String(decoding: ChildProcess.readFile(log), as: UTF8.self)
        #expect(termination == .exited(0),
                "Fuzz/build.sh no longer compiles the image layer on its own:\n\(output)")
    }
}
