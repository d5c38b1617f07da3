import Foundation
import WebImageCodecs

/// `codecs-cli FILE [--thumbnail OUT] [--size N]`: decodes FILE, prints its format, pixel size and
/// frames, and with `--thumbnail` writes a thumbnail that fits N×N pixels (default 128) in the
/// format OUT's extension names.
public enum CodecsCLI {
    /// The usage line printed for bad arguments.
    public static let usage = "usage: codecs-cli FILE [--thumbnail OUT] [--size N]"

    /// Runs the tool with `arguments` (without the program name), printing to `output`;
    /// returns the exit status: 0, 1 for a file it cannot read or decode, 2 for bad arguments.
    public static func run(arguments: [String], output: inout some TextOutputStream) -> Int32 {
        let request: Request
        do {
            request = try Request(arguments: arguments)
        } catch {
            print("error: \(error.message)\n\(usage)", to: &output)
            return 2
        }
        do {
            for line in try describe(request) { print(line, to: &output) }
            return 0
        } catch {
            print("error: \(error.message)", to: &output)
            return 1
        }
    }

    /// The lines the tool prints for `request`; writes the thumbnail when one is asked for.
    static func describe(_ request: Request) throws(ToolError) -> [String] {
        let data: Data
        do {
            data = try Data(contentsOf: URL(fileURLWithPath: request.input))
        } catch {
            throw ToolError("cannot read \(request.input): \(error.localizedDescription)")
        }
        let codecs = CodersManager.shared
        guard let info = codecs.imageInfo(for: data) else {
            throw ToolError("\(request.input) is not an image this library decodes")
        }
        // The full decode keeps an animation's frames lazy: only the first is decoded here.
        let image: Image
        do {
            image = try codecs.decode(data, options: .default)
        } catch {
            throw ToolError("cannot decode \(request.input): \(error)")
        }
        var lines = [
            "format: \(info.format.rawValue) (\(info.format.mimeType))",
            "size: \(image.width)x\(image.height)",
            image.isAnimated
                ? "frames: \(image.frameCount), \(String(format: "%.2f", image.duration)) s, "
                  + (image.loopCount == 0 ? "looping forever" : "\(image.loopCount) loops")
                : "frames: 1",
        ]
        if let output = request.thumbnail {
            let size = try writeThumbnail(of: data, to: output, fitting: request.size)
            lines.append("thumbnail: \(output) (\(size.width)x\(size.height))")
        }
        return lines
    }

    /// Decodes `data` straight at the size that fits `box`×`box` (the decoders scale while they
    /// decode where the format allows) and writes its first frame to `path`.
    static func writeThumbnail(of data: Data, to path: String, fitting box: Int) throws(ToolError) -> PixelSize {
        let format = ImageFormat(fileExtension: (path as NSString).pathExtension.lowercased())
        guard format != .undefined, format != .svg, format != .pdf else {
            throw ToolError("cannot write \(path): name it .png, .jpg, .webp, .avif, .jxl, .gif, .tiff or .bmp")
        }
        let options = DecodeOptions(firstFrameOnly: true, thumbnailPixelSize: PixelSize(width: box, height: box))
        do {
            let thumbnail = try CodersManager.shared.decode(data, options: options)
            let encoded = try CodersManager.shared.encode(thumbnail, as: format,
                                                          options: EncodeOptions(compressionQuality: 0.85))
            try encoded.write(to: URL(fileURLWithPath: path))
            return thumbnail.pixelSize
        } catch {
            throw ToolError("cannot write the thumbnail \(path): \(error)")
        }
    }
}

/// The tool's arguments, checked.
struct Request {
    var input: String
    var thumbnail: String?
    var size = 128

    /// The largest thumbnail box accepted, in pixels.
    static let maxSize = 4096

    init(arguments: [String]) throws(ToolError) {
        var input: String?
        var rest = arguments[...]
        while let argument = rest.popFirst() {
            switch argument {
            case "--thumbnail":
                guard let value = rest.popFirst() else { throw ToolError("--thumbnail needs a file name") }
                thumbnail = value
            case "--size":
                guard let value = rest.popFirst(), let size = Int(value), (1...Self.maxSize).contains(size) else {
                    throw ToolError("--size needs a number of pixels from 1 to \(Self.maxSize)")
                }
                self.size = size
            case _ where argument.hasPrefix("-"):
                throw ToolError("unknown option \(argument)")
            default:
                guard input == nil else { throw ToolError("one FILE only") }
                input = argument
            }
        }
        guard let input else { throw ToolError("no FILE given") }
        self.input = input
    }
}

/// A failure the tool reports in one line.
struct ToolError: Error {
    let message: String
    init(_ message: String) { self.message = message }
}

/// Standard output as a `TextOutputStream`.
public struct StandardOutput: TextOutputStream {
    public init() {}
    public mutating func write(_ string: String) {
        FileHandle.standardOutput.write(Data(string.utf8))
    }
}
