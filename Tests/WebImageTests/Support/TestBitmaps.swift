import Foundation
@testable import WebImage
@testable import WebImageCodecs
@testable import WebImageLoading

/// Bitmaps and byte blocks the coder tests build fixtures from (no binary files are checked in).
enum TestBitmaps {
    static let red = RGBA(r: 255, g: 0, b: 0)
    static let green = RGBA(r: 0, g: 255, b: 0)
    static let blue = RGBA(r: 0, g: 0, b: 255)
    static let yellow = RGBA(r: 255, g: 255, b: 0)

    /// An upright picture of solid quadrants: top-left red, top-right green, bottom-left blue,
    /// bottom-right yellow. Solid areas survive lossy codecs, so corners can be checked by colour.
    static func quadrants(width: Int = 64, height: Int = 48) -> Bitmap {
        Bitmap(width: width, height: height) { out in
            for y in 0..<height {
                for x in 0..<width {
                    let c: RGBA = y < height / 2 ? (x < width / 2 ? red : green) : (x < width / 2 ? blue : yellow)
                    let i = (y * width + x) * 4
                    out[i] = c.r; out[i + 1] = c.g; out[i + 2] = c.b; out[i + 3] = c.a
                }
            }
        }
    }

    /// The stored pixels a file with EXIF `orientation` holds so that it *displays* as `upright`.
    static func stored(_ upright: Bitmap, for orientation: EXIFOrientation) -> Bitmap {
        let inverse: EXIFOrientation = switch orientation {
        case .right: .left
        case .left: .right
        default: orientation
        }
        return upright.applying(inverse)
    }

    /// A little-endian TIFF block (as in EXIF) with only the orientation tag.
    static func exifTIFF(orientation: EXIFOrientation) -> [UInt8] {
        [0x49, 0x49, 0x2A, 0, 8, 0, 0, 0, 1, 0, 0x12, 0x01, 3, 0, 1, 0, 0, 0,
         UInt8(orientation.rawValue), 0, 0, 0, 0, 0, 0, 0]
    }

    /// Checks that `bitmap` shows the quadrants picture upright, corners within `tolerance`.
    static func isUprightQuadrants(_ bitmap: Bitmap, tolerance: Int = 40) -> Bool {
        let w = bitmap.width, h = bitmap.height
        let probes = [(w / 8, h / 8, red), (w - 1 - w / 8, h / 8, green),
                      (w / 8, h - 1 - h / 8, blue), (w - 1 - w / 8, h - 1 - h / 8, yellow)]
        return probes.allSatisfy { bitmap.pixel(x: $0.0, y: $0.1).isClose(to: $0.2, tolerance: tolerance) }
    }

    /// A smooth photo-like gradient with some texture (for lossy round trips and sizes).
    static func gradient(width: Int, height: Int, alpha: Bool = false) -> Bitmap {
        Bitmap(width: width, height: height) { out in
            for y in 0..<height {
                for x in 0..<width {
                    let i = (y * width + x) * 4
                    out[i] = UInt8(x * 255 / max(width - 1, 1))
                    out[i + 1] = UInt8(y * 255 / max(height - 1, 1))
                    out[i + 2] = UInt8((x ^ y) & 0x3F) &+ 96
                    out[i + 3] = alpha ? UInt8((x + y) * 255 / max(width + height - 2, 1)) : 255
                }
            }
        }
    }

    /// Deterministic pseudo-random bytes (for "random input must fail cleanly" tests).
    static func noise(count: Int, seed: UInt64) -> Data {
        var state = seed &+ 0x9E37_79B9_7F4A_7C15
        var bytes = [UInt8](repeating: 0, count: count)
        for i in 0..<count {
            state ^= state << 13; state ^= state >> 7; state ^= state << 17
            bytes[i] = UInt8(truncatingIfNeeded: state)
        }
        return Data(bytes)
    }
}
