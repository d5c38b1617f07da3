@testable import WebImage
@testable import WebImageCodecs
@testable import WebImageLoading

/// The 300×300 picture the transformer tests work on, drawn at test time so that every probe
/// below means something: coloured 30×30 corners (top-left red, top-right green, bottom-left
/// blue, bottom-right yellow), an opaque black band at the top centre (x 100..<200, y 0..<30)
/// and down the left side (x 0..<40), a half-transparent blue band down the right side
/// (x 260..<300), an opaque white band along the bottom, and a clear centre.
enum TransformFixtures {
    static let red = RGBA(r: 255, g: 0, b: 0)
    static let green = RGBA(r: 0, g: 255, b: 0)
    static let blue = RGBA(r: 0, g: 0, b: 255)
    static let yellow = RGBA(r: 255, g: 255, b: 0)
    static let magenta = RGBA(r: 255, g: 0, b: 255)
    static let halfBlue = RGBA(r: 0, g: 0, b: 255, a: 128)

    /// The colour the fixture has at (x, y).
    static func colour(x: Int, y: Int) -> RGBA {
        let top = y < 30, bottom = y >= 270, left = x < 30, right = x >= 270
        if top && left { return red }
        if top && right { return green }
        if bottom && left { return blue }
        if bottom && right { return yellow }
        if top { return x >= 100 && x < 200 ? .black : .clear }
        if bottom { return .white }
        if x < 40 { return .black }
        if x >= 260 { return halfBlue }
        return .clear
    }

    static let bitmap: Bitmap = Bitmap(width: 300, height: 300) { out in
        for y in 0..<300 {
            for x in 0..<300 {
                let c = colour(x: x, y: y), i = (y * 300 + x) * 4
                out[i] = c.r; out[i + 1] = c.g; out[i + 2] = c.b; out[i + 3] = c.a
            }
        }
    }

    /// The fixture as an image (PNG-flavoured metadata so preservation can be checked).
    static func image(scale: Double = 1) -> Image {
        Image(bitmap: bitmap, format: .png, scale: scale)
    }

    /// Runs `transformer` the way the manager does (metadata rules included).
    static func apply(_ transformer: any ImageTransforming, to source: Image = TransformFixtures.image()) -> Image? {
        transformer.transformedImage(source, forKey: "https://example.com/fixture.png")
    }
}

extension Image {
    /// The first frame's colour at (x, y).
    func colourAt(_ x: Int, _ y: Int) -> RGBA { bitmap.pixel(x: x, y: y) }
}

extension RGBA {
    /// Close to `other` within `tolerance` per channel; for clear pixels only alpha matters.
    func looksLike(_ other: RGBA, tolerance: Int = 8) -> Bool {
        if other.a == 0 { return Int(a) <= tolerance }
        return isClose(to: other, tolerance: tolerance)
    }
}
