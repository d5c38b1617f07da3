import Foundation
import Testing
@testable import WebImage
@testable import WebImageCodecs
@testable import WebImageLoading

@Suite("CLI demo")
struct CLIDemoTests {
    @Test func smallDemoRunsAndItsContactSheetDecodes() async throws {
        let dir = try CLIProcess.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let run = try await CLIProcess.run(["demo", "--out", dir.path, "--count", "5"])
        #expect(run.status == 0, "\(run.stdout)\n\(run.stderr)")
        for pass in ["cold", "warm disk", "warm memory", "thumbnail", "transform"] {
            #expect(run.stdout.contains(pass))
        }
        // The warm passes download nothing and hit the cache for every image.
        let warm = try #require(run.lines.first { $0.hasPrefix("warm disk") })
        #expect(warm.split(separator: " ").contains("5/5"))
        #expect(warm.contains(" 0 B"))

        let sheet = try Data(contentsOf: dir.appendingPathComponent("contact-sheet.png"))
        let image = try CodersManager.shared.decode(sheet, options: DecodeOptions())
        #expect(image.format == .png)
        #expect(image.width > 128 * 5 && image.height > 128)
        // The demo's cache was temporary: only the contact sheet is left.
        let left = try FileManager.default.contentsOfDirectory(atPath: dir.path)
        #expect(left == ["contact-sheet.png"])
    }
}
