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
        for pass in ["cold", "warm disk", "warm memory", "thumbnail", "transform", "formats"] {
            #expect(run.stdout.contains(pass))
        }
        // The warm passes download nothing and hit the cache for every image.
        let warm = try #require(run.lines.first { $0.hasPrefix("warm disk") })
        #expect(warm.split(separator: " ").contains("5/5"))
        #expect(warm.contains(" 0 B"))
        // AVIF, JPEG XL, HEIC and SVG: served by the origin and loaded like the gallery.
        let formatsPass = try #require(run.lines.first { $0.hasPrefix("formats ") })
        #expect(formatsPass.split(separator: " ").contains("4/4"))

        // Each row of the contact sheet, as the demo lists its labels.
        func row(_ name: String) throws -> [String] {
            let line = try #require(run.lines.first { $0.hasPrefix(name + ": ") }, "no \(name) row in\n\(run.stdout)")
            return line.dropFirst(name.count + 2).components(separatedBy: " | ")
        }
        #expect(try row("formats") == ["JPEG 640x480", "PNG 320x320", "GIF 200x150 anim", "WebP 200x150 anim",
                                       "AVIF 256x192", "JPEG XL 192x192", "HEIC 64x48", "SVG rendered 192x192"])
        // The WebP animation's frames as the player showed them, with their times.
        #expect(try row("player") == ["player f0 0.0s", "player f2 0.2s", "player f4 0.4s", "player f6 0.6s"])
        let serve = try row("serve")
        #expect(serve.count == 4)
        #expect(Array(serve.prefix(2)) == ["serve fit 200x200", "serve fill 160 g:sm"])
        #expect(serve[2] == "serve watermark")
        #expect(serve[3] == "serve Accept > AVIF")
        #expect(try row("gallery") == ["img-000.jpg round", "img-001.png round", "img-002.gif round",
                                       "img-003.jpg round", "img-004.webp round"])
        // webimage serve's answers: sizes of the decoded results, AVIF chosen by Accept.
        let fit = try #require(run.lines.first { $0.hasPrefix("fit 200x200 ") })
        #expect(fit.split(separator: " ").suffix(3) == ["200", "image/jpeg", "200x150"])
        let fill = try #require(run.lines.first { $0.hasPrefix("fill 160 g:sm ") })
        #expect(fill.split(separator: " ").suffix(3) == ["200", "image/png", "160x160"])
        let watermark = try #require(run.lines.first { $0.hasPrefix("watermark ") })
        #expect(watermark.split(separator: " ").suffix(3) == ["200", "image/jpeg", "200x150"])
        let avif = try #require(run.lines.first { $0.hasPrefix("Accept avif ") })
        #expect(avif.split(separator: " ").suffix(3) == ["200", "image/avif", "200x150"])

        let sheet = try Data(contentsOf: dir.appendingPathComponent("contact-sheet.png"))
        let image = try CodersManager.shared.decode(sheet, options: DecodeOptions())
        #expect(image.format == .png)
        // Four lines of at most eight 128-pixel cells, each with its label strip.
        #expect(image.pixelSize == PixelSize(width: 8 + 8 * (128 + 8), height: 8 + 4 * (128 + 12 + 8)))
        // The first label's text is drawn under its cell: light pixels on the dark background.
        let strip = (8 + 128 + 3)..<(8 + 128 + 10)
        let lit = strip.reduce(0) { count, y in
            count + (8..<(8 + 128)).filter { x in image.bitmap.pixels[(y * image.width + x) * 4] > 200 }.count
        }
        #expect(lit > 20, "the label under the first tile is drawn")
        // The demo's cache was temporary: only the contact sheet is left.
        let left = try FileManager.default.contentsOfDirectory(atPath: dir.path)
        #expect(left == ["contact-sheet.png"])
    }
}
