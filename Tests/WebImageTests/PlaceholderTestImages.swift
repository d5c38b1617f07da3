import WebImageCodecs

/// The synthetic images the BlurHash and ThumbHash vectors were computed from. The reference
/// implementations were run on exactly these pixels (BlurHash: woltapp/blurhash's C encoder and
/// decoder; ThumbHash: evanw/thumbhash's js/thumbhash.js), so each formula here must stay as it is.
enum PlaceholderTestImages {
    /// 32×24 opaque gradient: R = 8x, G = 10y, B = 255 − 4x − 3y.
    static let gradient = make(32, 24) { x, y in (x * 8, y * 10, 255 - x * 4 - y * 3, 255) }
    /// 20×30: R = 200, G = 12x, B = 8y; the left half opaque, the right half's alpha 25·(x − 10).
    static let halfTransparent = make(20, 30) { x, y in (200, x * 12, y * 8, x < 10 ? 255 : (x - 10) * 25) }
    /// 64×16 opaque: vertical stripes 8 pixels wide (R 20 or 230), G = 120, B = 16y.
    static let stripes = make(64, 16) { x, y in (x / 8 % 2 == 1 ? 230 : 20, 120, y * 16, 255) }
    /// 7×5 of opaque orange (255, 128, 0).
    static let orange = make(7, 5) { _, _ in (255, 128, 0, 255) }
    /// 10×50: R = 25x, G = 255 − 5y, B = xy mod 256; rows from 25 down fully transparent.
    static let tall = make(10, 50) { x, y in (x * 25, 255 - y * 5, x * y % 256, y < 25 ? 255 : 0) }

    /// Pseudo-random bytes from a 32-bit LCG (seed = seed × 1103515245 + 12345; byte = bits
    /// 16–23), row by row and R, G, B, A in turn; alpha forced to 255 unless `alpha`.
    static func noise(_ width: Int, _ height: Int, alpha: Bool, seed: UInt32) -> Bitmap {
        var state = seed
        var bytes = [UInt8](repeating: 0, count: width * height * 4)
        for i in bytes.indices {
            state = state &* 1_103_515_245 &+ 12345
            bytes[i] = !alpha && i % 4 == 3 ? 255 : UInt8(truncatingIfNeeded: state >> 16)
        }
        return Bitmap(width: width, height: height, pixels: bytes)
    }

    static func make(_ width: Int, _ height: Int,
                     _ pixel: (Int, Int) -> (Int, Int, Int, Int)) -> Bitmap {
        var bytes: [UInt8] = []
        for y in 0..<height {
            for x in 0..<width {
                let (r, g, b, a) = pixel(x, y)
                bytes += [UInt8(r), UInt8(g), UInt8(b), UInt8(a)]
            }
        }
        return Bitmap(width: width, height: height, pixels: bytes)
    }
}
