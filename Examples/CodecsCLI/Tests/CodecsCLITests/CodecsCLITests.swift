import CodecsCLIKit
import Foundation
import Testing
import WebImageCodecs

/// The tool on real files: images made with the library's encoders, written to a temporary
/// directory, described and thumbnailed; the thumbnails decoded and measured.
@Suite struct CodecsCLITests {
    let directory: URL

    init() throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("codecs-cli-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    }

    private func run(_ arguments: [String]) -> (status: Int32, lines: [String]) {
        var text = ""
        let status = CodecsCLI.run(arguments: arguments, output: &text)
        return (status, text.split(separator: "\n").map(String.init))
    }

    private func write(_ image: Image, as format: ImageFormat, name: String) throws -> String {
        let path = directory.appendingPathComponent(name).path
        try CodersManager.shared.encode(image, as: format, options: EncodeOptions(compressionQuality: 0.9))
            .write(to: URL(fileURLWithPath: path))
        return path
    }

    private static func picture(_ width: Int, _ height: Int, shade: UInt8 = 0) -> Bitmap {
        var pixels = [UInt8](repeating: 255, count: width * height * 4)
        for y in 0..<height {
            for x in 0..<width {
                let i = (y * width + x) * 4
                pixels[i] = UInt8(x * 255 / max(1, width - 1))
                pixels[i + 1] = UInt8(y * 255 / max(1, height - 1))
                pixels[i + 2] = shade
            }
        }
        return Bitmap(width: width, height: height, pixels: pixels)
    }

    @Test func aJPEGIsDescribedAndThumbnailed() throws {
        defer { try? FileManager.default.removeItem(at: directory) }
        let input = try write(Image(bitmap: Self.picture(400, 300)), as: .jpeg, name: "photo.jpg")
        let thumbnail = directory.appendingPathComponent("thumb.png").path
        let run = run([input, "--thumbnail", thumbnail])
        #expect(run.status == 0)
        #expect(run.lines == ["format: jpeg (image/jpeg)", "size: 400x300", "frames: 1",
                              "thumbnail: \(thumbnail) (128x96)"])
        let written = try CodersManager.shared.decode(Data(contentsOf: URL(fileURLWithPath: thumbnail)), options: .default)
        #expect(written.format == .png)
        #expect(written.pixelSize == PixelSize(width: 128, height: 96))
    }

    @Test func anAnimatedGIFReportsItsFrames() throws {
        defer { try? FileManager.default.removeItem(at: directory) }
        let frames = (0..<6).map { ImageFrame(bitmap: Self.picture(120, 80, shade: UInt8($0 * 40)), duration: 0.25) }
        let input = try write(Image(frames: frames, loopCount: 0), as: .gif, name: "spin.gif")
        let thumbnail = directory.appendingPathComponent("spin.webp").path
        let run = run([input, "--thumbnail", thumbnail, "--size", "60"])
        #expect(run.status == 0)
        #expect(run.lines.prefix(3) == ["format: gif (image/gif)", "size: 120x80", "frames: 6, 1.50 s, looping forever"])
        let written = try CodersManager.shared.decode(Data(contentsOf: URL(fileURLWithPath: thumbnail)), options: .default)
        #expect(written.format == .webp)
        #expect(written.pixelSize == PixelSize(width: 60, height: 40))
        #expect(!written.isAnimated, "the thumbnail is the first frame")
    }

    @Test func badInputIsRefusedWithAnExitStatus() throws {
        defer { try? FileManager.default.removeItem(at: directory) }
        let text = directory.appendingPathComponent("notes.txt")
        try Data("not an image".utf8).write(to: text)
        let notImage = run([text.path])
        #expect(notImage.status == 1)
        #expect(notImage.lines.first?.hasPrefix("error: ") == true)
        #expect(run([directory.appendingPathComponent("missing.png").path]).status == 1)
        #expect(run([]).status == 2)
        #expect(run([text.path, "--size", "0"]).status == 2)
        #expect(run([text.path, "--size", "99999999999999999999"]).status == 2)
        #expect(run([text.path, "--bogus"]).status == 2)
    }
}
