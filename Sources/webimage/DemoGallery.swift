import Foundation
import WebImage

/// One generated image the demo origin serves.
struct DemoItem: Sendable {
    let path: String
    let data: Data
    let contentType: String
    let format: ImageFormat
}

/// The demo's offline gallery, made with the library's own encoders: photo-like JPEGs (gradients,
/// soft shapes and grain), PNGs with alpha, and animated GIFs and WebPs. Deterministic per index.
enum DemoGallery {
    /// `count` items; of every ten: six JPEG photos, two PNGs with alpha, one GIF and one WebP
    /// animation (the first five already hold every kind).
    static func make(count: Int) throws -> [DemoItem] {
        try (0..<count).map { index in
            switch index % 10 {
            case 1, 6: return try item(index, .png, Image(bitmap: DemoPainter.sticker(index, width: 320, height: 320)))
            case 2: return try item(index, .gif, animation(index, frames: 8))
            case 4: return try item(index, .webp, animation(index, frames: 8))
            default:
                let width = [640, 800, 960, 720][index % 4]
                return try item(index, .jpeg, Image(bitmap: DemoPainter.photo(index, width: width, height: width * 3 / 4)))
            }
        }
    }

    private static func item(_ index: Int, _ format: ImageFormat, _ image: Image) throws -> DemoItem {
        let options = EncodeOptions(compressionQuality: format == .jpeg || format == .webp ? 0.85 : 1)
        let data = try CodersManager.shared.encode(image, as: format, options: options)
        let number = String(index)
        let name = "img-" + String(repeating: "0", count: max(0, 3 - number.count)) + number + "." + format.fileExtension
        return DemoItem(path: "/gallery/" + name, data: data, contentType: format.mimeType, format: format)
    }

    private static func animation(_ index: Int, frames: Int) -> Image {
        let frameList = (0..<frames).map { frame in
            ImageFrame(bitmap: DemoPainter.orbit(index, frame: frame, of: frames, width: 200, height: 150), duration: 0.1)
        }
        return Image(frames: frameList, loopCount: 0)
    }
}

/// Procedural pictures for the demo gallery.
enum DemoPainter {
    /// A landscape-like picture: a sky-to-ground gradient, a soft sun, rolling hills and grain.
    static func photo(_ seed: Int, width: Int, height: Int) -> Bitmap {
        var random = SplitMix(seed: UInt64(seed) &* 0x9E37_79B9 &+ 1)
        let hue = Double(seed % 7) / 7
        let sky = color(hue: hue, light: 0.75), ground = color(hue: hue + 0.35, light: 0.35)
        let sunX = Double(random.next() % UInt64(width)), sunY = Double(height) * 0.3
        let sunR = Double(height) * (0.08 + Double(random.next() % 10) / 100)
        let hillPhase = Double(random.next() % 628) / 100
        let horizons = (0..<width).map { 0.55 + 0.08 * sin(Double($0) / Double(width) * 6.3 + hillPhase) }
        return Bitmap(width: width, height: height) { out in
            for y in 0..<height {
                let t = Double(y) / Double(height)
                for x in 0..<width {
                    let horizon = horizons[x]
                    let base = t < horizon ? mix(sky, .white, t / horizon * 0.5) : mix(ground, .black, (t - horizon) * 0.8)
                    let dx = Double(x) - sunX, dy = Double(y) - sunY
                    let glow = t < horizon ? max(0, 1 - (dx * dx + dy * dy).squareRoot() / sunR) : 0
                    var c = mix(base, RGBA(r: 255, g: 236, b: 180), min(1, glow * 1.6))
                    let grain = Int(random.next() % 17) - 8
                    c = RGBA(r: clamp(Int(c.r) + grain), g: clamp(Int(c.g) + grain), b: clamp(Int(c.b) + grain))
                    let i = (y * width + x) * 4
                    out[i] = c.r; out[i + 1] = c.g; out[i + 2] = c.b; out[i + 3] = 255
                }
            }
        }
    }

    /// A rounded badge with a soft, transparent edge (for PNG with alpha).
    static func sticker(_ seed: Int, width: Int, height: Int) -> Bitmap {
        let fill = color(hue: Double(seed % 11) / 11, light: 0.55)
        let cx = Double(width) / 2, cy = Double(height) / 2, r = Double(min(width, height)) * 0.45
        return Bitmap(width: width, height: height) { out in
            for y in 0..<height {
                for x in 0..<width {
                    let d = ((Double(x) - cx) * (Double(x) - cx) + (Double(y) - cy) * (Double(y) - cy)).squareRoot()
                    let alpha = max(0, min(1, (r - d) / 6))
                    let ring = abs(d - r * 0.6) < 6 ? RGBA.white : mix(fill, .black, Double(y) / Double(height) * 0.4)
                    let i = (y * width + x) * 4
                    out[i] = ring.r; out[i + 1] = ring.g; out[i + 2] = ring.b; out[i + 3] = UInt8(alpha * 255)
                }
            }
        }
    }

    /// Frame `frame` of a ball circling over a gradient (for the animations).
    static func orbit(_ seed: Int, frame: Int, of frames: Int, width: Int, height: Int) -> Bitmap {
        let hue = Double((seed / 10) % 7) / 7 + Double(seed % 10) / 20
        let back = color(hue: hue, light: 0.3), ball = color(hue: hue + 0.5, light: 0.6)
        let angle = Double(frame) / Double(frames) * 2 * .pi
        let bx = Double(width) / 2 + cos(angle) * Double(width) * 0.3, by = Double(height) / 2 + sin(angle) * Double(height) * 0.3
        let r = Double(height) * 0.15
        return Bitmap(width: width, height: height) { out in
            for y in 0..<height {
                for x in 0..<width {
                    let d = ((Double(x) - bx) * (Double(x) - bx) + (Double(y) - by) * (Double(y) - by)).squareRoot()
                    let c = d < r ? ball : mix(back, .white, Double(x) / Double(width) * 0.3)
                    let i = (y * width + x) * 4
                    out[i] = c.r; out[i + 1] = c.g; out[i + 2] = c.b; out[i + 3] = 255
                }
            }
        }
    }

    /// A fully saturated colour for `hue` in 0…1 (wrapping) at HSL lightness `light`.
    static func color(hue: Double, light: Double) -> RGBA {
        let h = (hue - hue.rounded(.down)) * 12
        let amplitude = min(light, 1 - light)
        func channel(_ n: Double) -> UInt8 {
            let k = (n + h).truncatingRemainder(dividingBy: 12)
            let v = light - amplitude * max(-1, min(k - 3, 9 - k, 1))
            return UInt8(max(0, min(255, v * 255)))
        }
        return RGBA(r: channel(0), g: channel(8), b: channel(4))
    }

    static func mix(_ a: RGBA, _ b: RGBA, _ t: Double) -> RGBA {
        let t = max(0, min(1, t))
        func lerp(_ p: UInt8, _ q: UInt8) -> UInt8 { UInt8(Double(p) + (Double(q) - Double(p)) * t) }
        return RGBA(r: lerp(a.r, b.r), g: lerp(a.g, b.g), b: lerp(a.b, b.b))
    }

    static func clamp(_ v: Int) -> UInt8 { UInt8(max(0, min(255, v))) }
}

/// A tiny deterministic random generator (SplitMix64), so every run paints the same gallery.
struct SplitMix {
    private var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
