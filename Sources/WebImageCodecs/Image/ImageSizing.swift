import Foundation

/// The size rules of thumbnail decoding and scale-down limits (SDWebImage's coder-helper rules).
public enum ImageSizing {
    /// The size of `size` fitted to `box`.
    ///
    /// With `preserveAspectRatio` the result fits inside the box, the derived side rounded up
    /// (100×200 into 150×150 → 75×150); without it the result is the box. Unless `allowUpscale`,
    /// each side is clamped to the original. A size or box with a side ≤ 0 returns `size` unchanged.
    public static func scaledSize(_ size: PixelSize, toFit box: PixelSize, preserveAspectRatio: Bool,
                                  allowUpscale: Bool) -> PixelSize {
        guard !size.isEmpty, !box.isEmpty else { return size }
        var result: PixelSize
        if preserveAspectRatio {
            let imageRatio = Double(size.width) / Double(size.height)
            let boxRatio = Double(box.width) / Double(box.height)
            if imageRatio > boxRatio {
                result = PixelSize(width: box.width,
                                   height: Int((Double(box.width) / imageRatio).rounded(.up)))
            } else {
                result = PixelSize(width: Int((Double(box.height) * imageRatio).rounded(.up)),
                                   height: box.height)
            }
        } else {
            result = box
        }
        if !allowUpscale {
            result.width = min(result.width, size.width)
            result.height = min(result.height, size.height)
        }
        result.width = max(result.width, 1)
        result.height = max(result.height, 1)
        return result
    }

    /// The largest size with `size`'s aspect ratio whose `frameCount` RGBA frames fit in
    /// `limitBytes`; `size` itself when it already fits. Each side is at least 1 (limit 1 → 1×1).
    public static func scaledSize(_ size: PixelSize, limitBytes: Int, bytesPerPixel: Int = 4,
                                  frameCount: Int = 1) -> PixelSize {
        guard !size.isEmpty else { return PixelSize(width: 1, height: 1) }
        let pixels = Double(max(limitBytes, 0)) / Double(bytesPerPixel) / Double(max(frameCount, 1))
        if Double(size.width) * Double(size.height) <= pixels { return size }
        let ratio = Double(size.height) / Double(size.width)
        let width = max(1, Int((pixels / ratio).squareRoot().rounded(.down)))
        let height = max(1, Int((Double(width) * ratio).rounded(.down)))
        return PixelSize(width: min(width, size.width), height: min(height, size.height))
    }

    /// The scale factor a cache key names, SDWebImage style: `@2x.` → 2, else `@3x.` → 3
    /// (also `%402x.` in http(s) URLs); otherwise 1.
    public static func scaleFactor(forKey key: String?) -> Double {
        guard var text = key, text.utf8.count >= 8 else { return 1 }
        let isHTTP = text.hasPrefix("http://") || text.hasPrefix("https://")
        return Double(text.withUTF8 { scaleFactor(in: $0, isHTTP: isHTTP) })
    }

    /// One pass over a key's bytes (this runs for every load): `@2x.` anywhere beats `@3x.`, as
    /// SDWebImage looks for 2 before 3; `%40` stands for `@` in http(s) keys.
    private static func scaleFactor(in bytes: UnsafeBufferPointer<UInt8>, isHTTP: Bool) -> Int {
        var found = 1
        for i in bytes.indices where bytes[i] == UInt8(ascii: "@") || bytes[i] == UInt8(ascii: "%") {
            let digit: Int
            if bytes[i] == UInt8(ascii: "@") {
                digit = i + 1
            } else {
                guard isHTTP, i + 2 < bytes.count, bytes[i + 1] == UInt8(ascii: "4"),
                      bytes[i + 2] == UInt8(ascii: "0") else { continue }
                digit = i + 3
            }
            guard digit + 2 < bytes.count, bytes[digit + 1] == UInt8(ascii: "x"),
                  bytes[digit + 2] == UInt8(ascii: ".") else { continue }
            if bytes[digit] == UInt8(ascii: "2") { return 2 }
            if bytes[digit] == UInt8(ascii: "3") { found = 3 }
        }
        return found
    }
}
