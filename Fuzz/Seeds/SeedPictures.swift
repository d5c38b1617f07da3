import WebImageCodecs

/// Small deterministic pictures for the seed corpora: gradients with a noisy corner, so every
/// codec path (smooth areas, edges, alpha ramps) has something to chew on.
enum SeedPictures {
    /// An RGBA gradient `width` x `height`; `alpha` makes the right half fade out.
    static func gradient(_ width: Int, _ height: Int, alpha: Bool = false, phase: Int = 0) -> Bitmap {
        var random = UInt32(truncatingIfNeeded: 0x9E37_79B9 &+ phase &* 7919)
        return Bitmap(width: width, height: height) { out in
            for y in 0..<height {
                for x in 0..<width {
                    random = random &* 1_664_525 &+ 1_013_904_223
                    let noisy = x < width / 4 && y < height / 4
                    let i = (y * width + x) * 4
                    let ramp: Int = (x * 255) / max(width - 1, 1) + phase * 40
                    let fade: Int = 255 - (x * 255) / max(width, 1)
                    out[i] = UInt8(truncatingIfNeeded: noisy ? Int(random >> 24) : ramp)
                    out[i + 1] = UInt8(truncatingIfNeeded: (y * 255) / max(height - 1, 1))
                    out[i + 2] = UInt8(truncatingIfNeeded: (x + y) * 7 + phase * 90)
                    out[i + 3] = alpha && x > width / 2 ? UInt8(truncatingIfNeeded: fade) : 255
                }
            }
        }
    }

    /// An animation of `count` frames of one size, each a shifted gradient.
    static func animation(_ width: Int, _ height: Int, frames count: Int, alpha: Bool = false,
                          loopCount: Int = 0) -> Image {
        let frames = (0..<count).map { index in
            ImageFrame(bitmap: gradient(width, height, alpha: alpha, phase: index), duration: 0.05 * Double(index + 1))
        }
        return Image(frames: frames, loopCount: loopCount)
    }

    /// A minimal EXIF block (`Exif\0\0` + little-endian TIFF) holding only an orientation tag.
    static func exif(orientation: UInt16) -> [UInt8] {
        var bytes = Array("Exif".utf8) + [0, 0]
        bytes += [0x49, 0x49, 0x2A, 0x00, 0x08, 0x00, 0x00, 0x00] // "II", 42, IFD at offset 8
        bytes += [0x01, 0x00] // one entry
        bytes += [0x12, 0x01, 0x03, 0x00, 0x01, 0x00, 0x00, 0x00] // tag 0x0112, SHORT, count 1
        bytes += [UInt8(orientation & 0xFF), UInt8(orientation >> 8), 0x00, 0x00]
        bytes += [0x00, 0x00, 0x00, 0x00] // no next IFD
        return bytes
    }
}
