import Foundation
import Testing
@testable import WebImageCodecs

/// The committed AVIF and HEIF fixtures (Tests/Fixtures, made by Debian's reference tools) and
/// the pixel comparisons their tests make against the reference decoders' output.
enum CodecFixtures {
    /// Tests/Fixtures, found from this file (Tests/WebImageTests/Support/…).
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("Fixtures")

    /// The bytes of `path` under Tests/Fixtures (`"avif/still-8bit.avif"`).
    static func data(_ path: String) throws -> Data {
        try Data(contentsOf: root.appendingPathComponent(path))
    }

    /// The reference decoder's output for `path` (`avif/reference/NAME.png` for `avif/NAME.avif`).
    static func reference(_ path: String) throws -> Bitmap {
        let file = URL(fileURLWithPath: path)
        let name = file.deletingPathExtension().lastPathComponent
        let folder = file.deletingLastPathComponent().relativePath
        let png = try data("\(folder)/reference/\(name).png")
        return try PNGCoder().decode(png, options: .default).bitmap
    }

    /// The largest difference of any channel of any pixel; `Int.max` when the sizes differ.
    static func maxDifference(_ a: Bitmap, _ b: Bitmap) -> Int {
        guard a.size == b.size else { return Int.max }
        var worst = 0
        for i in a.pixels.indices {
            worst = max(worst, abs(Int(a.pixels[i]) - Int(b.pixels[i])))
        }
        return worst
    }

    /// The mean absolute difference over every channel (sizes must match).
    static func meanDifference(_ a: Bitmap, _ b: Bitmap) -> Double {
        precondition(a.size == b.size, "\(a.size) vs \(b.size)")
        var total = 0
        for i in a.pixels.indices { total += abs(Int(a.pixels[i]) - Int(b.pixels[i])) }
        return Double(total) / Double(a.pixels.count)
    }

    /// The error code `body` throws, or nil when it throws nothing or not a ``WebImageError``.
    static func errorCode(_ body: () throws -> Any) -> WebImageError.Code? {
        error(body)?.code
    }

    /// The ``WebImageError`` `body` throws, if any.
    static func error(_ body: () throws -> Any) -> WebImageError? {
        do {
            _ = try body()
            return nil
        } catch {
            return error as? WebImageError
        }
    }
}
