import ArgumentParser
import Foundation
import WebImage

/// The formats `get --format` can write.
enum OutputFormat: String, CaseIterable, ExpressibleByArgument {
    case png, jpeg, webp, gif, avif, jxl, tiff

    init?(argument: String) {
        switch argument.lowercased() {
        case "jpg": self = .jpeg
        case "jpegxl", "jpeg-xl": self = .jxl
        case "tif": self = .tiff
        default: self.init(rawValue: argument.lowercased())
        }
    }

    var imageFormat: ImageFormat {
        switch self {
        case .png: .png
        case .jpeg: .jpeg
        case .webp: .webp
        case .gif: .gif
        case .avif: .avif
        case .jxl: .jpegXL
        case .tiff: .tiff
        }
    }
}

/// Where `get` writes one image: a path, and whether the written format's extension is added to it.
struct OutputTarget: Sendable {
    let path: String
    let appendsExtension: Bool
}

/// Writes delivered images to files: in the asked format, else the file name's, else the source's.
enum ImageOutput {
    /// The format to write `image` to `path` in.
    static func format(for path: String, requested: OutputFormat?, image: Image) -> ImageFormat {
        if let requested { return requested.imageFormat }
        let byName = ImageFormat(fileExtension: pathExtension(path))
        if byName != .undefined, CodersManager.shared.canEncode(to: byName) { return byName }
        return CodersManager.shared.defaultEncodingFormat(for: image)
    }

    /// A usage error when `path` has an extension no coder writes (`out.psd`, `out.dat`), which
    /// would otherwise get PNG or JPEG bytes under a misleading name; no extension is fine.
    static func validateExtension(of path: String) throws {
        let ext = pathExtension(path)
        guard !ext.isEmpty else { return }
        let byName = ImageFormat(fileExtension: ext)
        if byName != .undefined, CodersManager.shared.canEncode(to: byName) { return }
        throw ValidationError("Cannot write '.\(ext)' files: name the -o file .png, .jpg, .jpeg, .webp, .gif, .avif, .jxl, .tiff, .bmp or .ico, "
                              + "or choose the format with --format png|jpeg|webp|gif|avif|jxl|tiff.")
    }

    /// Writes `image` to `path` as `format`. The downloaded bytes are written as they are when
    /// they already hold exactly this image in this format; otherwise the image is encoded.
    static func write(_ image: Image, originalData: Data?, to path: String, as format: ImageFormat) throws {
        let data: Data
        if let originalData, ImageFormat.detect(originalData) == format {
            data = originalData
        } else {
            data = try CodersManager.shared.encode(image, as: format, options: EncodeOptions(compressionQuality: 0.9))
        }
        do {
            try data.write(to: URL(fileURLWithPath: path), options: .atomic)
        } catch {
            throw WebImageError(.encodingFailed, "Cannot write \(path): \(error.localizedDescription)")
        }
    }

    /// Distinct file names for `urls`, in order: the URL's last path component without its
    /// extension (the written format's is added later), made file-name safe and de-duplicated
    /// with `-2`, `-3`, ….
    static func baseNames(for urls: [URL]) -> [String] {
        var used: [String: Int] = [:]
        return urls.map { url in
            let safe = String(url.lastPathComponent.prefix(80).map { $0.isLetter || $0.isNumber || "-_.".contains($0) ? $0 : "_" })
            var stem = safe
            if let dot = safe.lastIndex(of: "."), dot != safe.startIndex { stem = String(safe[..<dot]) }
            if stem.isEmpty || stem.hasPrefix(".") { stem = "image" + stem }
            let seen = used[stem, default: 0] + 1
            used[stem] = seen
            return seen == 1 ? stem : "\(stem)-\(seen)"
        }
    }

    /// The extension of the last component of `path` (`"a/b.png"` → `"png"`), without
    /// Foundation's path code (which traps on some odd strings on Linux).
    static func pathExtension(_ path: String) -> String {
        let name = path.split(separator: "/").last.map(String.init) ?? ""
        guard let dot = name.lastIndex(of: "."), dot != name.startIndex else { return "" }
        return String(name[name.index(after: dot)...])
    }

    /// `name` inside `directory`.
    static func path(_ name: String, in directory: String) -> String {
        directory.hasSuffix("/") ? directory + name : directory + "/" + name
    }
}
