import Foundation
import Testing
@testable import WebImageCodecs

/// `webimage decode --json` names the colour profile, or gives null.
@Suite("CLI decode: colour profile")
struct CLIDecodeColorTests {
    @Test func jsonHasTheProfileDescriptionOrNull() async throws {
        let executable = try #require(webimageExecutable(), "build the webimage executable (swift build) first")
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("webimage-cli-colour-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let tagged = dir.appendingPathComponent("p3.jpg"), plain = dir.appendingPathComponent("plain.png")
        try ColorFixtures.taggedJPEG().write(to: tagged)
        try ColorFixtures.taggedPNG(icc: nil).write(to: plain)

        let child = try ChildProcess(executable.path, ["decode", tagged.path, plain.path, "--json"], stdout: .pipe)
        let (output, status) = await offThePool { (child.readStdout(), child.wait().status) }
        #expect(status == 0)
        let objects = try String(decoding: output, as: UTF8.self).split(separator: "\n").map { line in
            try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
        }
        #expect(objects.count == 2)
        #expect(objects.first?["colorProfile"] as? String == "Test Display P3")
        #expect(objects.last?["colorProfile"] is NSNull)
    }
}
