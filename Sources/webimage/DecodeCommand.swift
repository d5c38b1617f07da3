import ArgumentParser
import Foundation
import WebImage

/// `webimage decode FILE...`: decode local files and report what they hold.
struct DecodeCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "decode",
        abstract: "Decode image files and print their format, size and frames."
    )

    @Argument(help: "Image files to decode.")
    var files: [String]

    @Flag(help: "Print one JSON object per file, one per line.")
    var json = false

    @Option(help: "Decode to fit WxH (a thumbnail), e.g. 256x256.")
    var thumbnail: String?

    @Flag(help: "Decode only the first frame of animations.")
    var firstFrame = false

    @Flag(help: "Keep the pixels in the image's own colour profile instead of converting them to sRGB.")
    var noColorConversion = false

    @Flag(help: "Print each image's BlurHash (of its first frame).")
    var blurhash = false

    @Option(help: "BlurHash components XxY, each 1-9.")
    var blurhashComponents = "4x3"

    @Flag(help: "Print each image's ThumbHash (of its first frame), base64.")
    var thumbhash = false

    func validate() throws {
        if let thumbnail, PixelSize(parsing: thumbnail) == nil {
            throw ValidationError("--thumbnail takes WxH with positive whole numbers, got '\(thumbnail)'.")
        }
        guard let components = PixelSize(parsing: blurhashComponents),
              components.width <= BlurHash.maximumComponents, components.height <= BlurHash.maximumComponents else {
            throw ValidationError("--blurhash-components takes XxY with each 1-9, got '\(blurhashComponents)'.")
        }
    }

    /// The placeholder hashes asked for, of `image`'s first frame.
    private func hashes(of image: Image) throws -> (blurhash: String?, thumbhash: String?) {
        let components = PixelSize(parsing: blurhashComponents) ?? PixelSize(width: 4, height: 3)
        let blur = try blurhash
            ? BlurHash.encode(image.bitmap, xComponents: components.width, yComponents: components.height) : nil
        let thumb = thumbhash ? ThumbHash.base64(ThumbHash.encode(image.bitmap)) : nil
        return (blur, thumb)
    }

    func run() throws {
        var options = DecodeOptions(firstFrameOnly: firstFrame, convertsToSRGB: !noColorConversion)
        options.thumbnailPixelSize = thumbnail.flatMap(PixelSize.init(parsing:))
        var failed = false
        for file in files {
            let start = ContinuousClock.now
            do {
                let data = try Self.read(file)
                let image = try CodersManager.shared.decode(data, options: options)
                let ms = (ContinuousClock.now - start).milliseconds
                let placeholders = try hashes(of: image)
                if json {
                    var line = JSONLine()
                    line.add("file", file); line.add("ok", true)
                    line.add("format", image.format.rawValue)
                    line.add("width", image.width); line.add("height", image.height)
                    line.add("frames", image.frameCount); line.add("loopCount", image.loopCount)
                    line.add("duration", image.duration)
                    line.add("colorProfile", image.colorProfile?.description)
                    if blurhash { line.add("blurhash", placeholders.blurhash) }
                    if thumbhash { line.add("thumbhash", placeholders.thumbhash) }
                    line.add("ms", ms)
                    print(line.text)
                } else {
                    let profile = image.colorProfile.map { ", profile \($0.description ?? "(unnamed)")" } ?? ""
                    print("\(file): \(image.format.rawValue) \(image.width)x\(image.height), \(image.frameCount) frame(s)\(image.isAnimated ? String(format: " (%.2f s)", image.duration) : ""), loop \(image.loopCount)\(profile), \(String(format: "%.1f", ms)) ms")
                    if let hash = placeholders.blurhash { print("  blurhash: \(hash)") }
                    if let hash = placeholders.thumbhash { print("  thumbhash: \(hash)") }
                }
            } catch {
                failed = true
                if json {
                    var line = JSONLine()
                    line.add("file", file); line.add("ok", false); line.addError(error)
                    print(line.text)
                } else {
                    FileHandle.standardError.write(Data("\(file): \(error)\n".utf8))
                }
            }
        }
        if failed { throw ExitCode(1) }
    }

    static func read(_ path: String) throws -> Data {
        do {
            return try Data(contentsOf: URL(fileURLWithPath: path))
        } catch {
            throw WebImageError(.badImageData, "Cannot read \(path): \(error.localizedDescription)")
        }
    }
}

extension PixelSize {
    /// Parses `WxH` (e.g. `256x256`); nil unless both sides are positive integers.
    init?(parsing text: String) {
        let parts = text.lowercased().split(separator: "x", omittingEmptySubsequences: false)
        guard parts.count == 2, let w = Int(parts[0]), let h = Int(parts[1]), w > 0, h > 0 else { return nil }
        self.init(width: w, height: h)
    }
}

extension Duration {
    /// This duration in milliseconds.
    var milliseconds: Double {
        Double(components.seconds) * 1000 + Double(components.attoseconds) / 1e15
    }
}
