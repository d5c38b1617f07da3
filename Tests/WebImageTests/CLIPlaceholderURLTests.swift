import Foundation
import Testing
@testable import WebImage

/// `webimage decode --blurhash/--thumbhash` and `webimage url`, run as the built executable.
@Suite("CLI placeholders and URLs")
struct CLIPlaceholderURLTests {
    func run(_ arguments: [String]) async throws -> (status: Int32, lines: [String]) {
        let executable = try #require(webimageExecutable(), "build the webimage executable (swift build) first")
        let child = try ChildProcess(executable.path, arguments, stdout: .pipe)
        let (output, status) = await offThePool { (child.readStdout(), child.wait().status) }
        return (status, String(decoding: output, as: UTF8.self).split(separator: "\n").map(String.init))
    }

    /// A lossless file of the vectors' gradient prints the reference hashes.
    @Test func decodePrintsTheHashes() async throws {
        let directory = FileManager.default.temporaryDirectory
        let file = directory.appendingPathComponent("webimage-hash-\(UUID().uuidString).png")
        let noise = directory.appendingPathComponent("webimage-hash-\(UUID().uuidString).png")
        defer {
            try? FileManager.default.removeItem(at: file)
            try? FileManager.default.removeItem(at: noise)
        }
        try CodersManager.shared.encode(Image(bitmap: PlaceholderTestImages.gradient), as: .png, options: .default)
            .write(to: file)
        try CodersManager.shared.encode(Image(bitmap: PlaceholderTestImages.noise(24, 18, alpha: false, seed: 1)),
                                        as: .png, options: .default).write(to: noise)
        let text = try await run(["decode", file.path, noise.path, "--blurhash", "--thumbhash"])
        #expect(text.status == 0)
        #expect(text.lines.contains("  blurhash: LxH2812yw#XAmLWZjuf8gLfkfQfk"))
        #expect(text.lines.contains("  thumbhash: HwgCDYLYqo1Ay9Y6RHmXvB+D6VT8"))
        let json = try await run(["decode", file.path, "--json", "--blurhash", "--blurhash-components", "1x1"])
        let line = try #require(json.lines.first)
        let object = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
        #expect(object["blurhash"] as? String == "00H281")
        #expect(object["thumbhash"] == nil)
        let bad = try await run(["decode", file.path, "--blurhash", "--blurhash-components", "10x3"])
        #expect(bad.status == 2)
    }

    @Test func urlPrintsASignedPath() async throws {
        let key = "943b421c9eb07c830af81030552c86009268de4e532ba2ee2eab8247c6da0881"
        let salt = "520f986b998545b4785e0defbc4f3c1203f22de2374a3d53cb7a7fe9fea309c5"
        let source = "http://img.example.com/pretty/image.jpg"
        let signed = try await run(["url", "--key", key, "--salt", salt, "rs:fit:300:300", source])
        #expect(signed.status == 0)
        #expect(signed.lines == ["/m3k5QADfcKPDj-SDI2AIogZbC3FlAXszuwhtWXYqavc/rs:fit:300:300/plain/\(source)"])
        let short = try await run(["url", "--key", key, "--salt", salt, "--signature-size", "8",
                                   "--base", "https://img.example.com/", "rs:fit:300:300", source])
        #expect(short.lines == ["https://img.example.com/m3k5QADfcKM/rs:fit:300:300/plain/\(source)"])
        let encoded = try await run(["url", "--base64", "--extension", "png", "rs:fit:300:300", source])
        #expect(encoded.lines == ["/insecure/rs:fit:300:300/aHR0cDovL2ltZy5leGFtcGxlLmNvbS9wcmV0dHkvaW1hZ2UuanBn.png"])
        #expect(try await run(["url", "rs", source]).status == 2)
        #expect(try await run(["url", "--key", "xyz", "--salt", "00", source]).status == 2)
        #expect(try await run(["url", "--key", key, source]).status == 2)
    }
}
