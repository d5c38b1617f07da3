/// An 8-bit-per-channel colour with straight (non-premultiplied) alpha.
public struct RGBA: Sendable, Hashable, CustomStringConvertible {
    /// Red, 0–255.
    public var r: UInt8
    /// Green, 0–255.
    public var g: UInt8
    /// Blue, 0–255.
    public var b: UInt8
    /// Alpha, 0 (transparent) to 255 (opaque); the colour channels are not premultiplied.
    public var a: UInt8

    /// A colour from straight-alpha channels; opaque unless `a` is given.
    public init(r: UInt8, g: UInt8, b: UInt8, a: UInt8 = 255) {
        self.r = r; self.g = g; self.b = b; self.a = a
    }

    /// Fully transparent black, the colour of an empty canvas.
    public static let clear = RGBA(r: 0, g: 0, b: 0, a: 0)
    /// Opaque black.
    public static let black = RGBA(r: 0, g: 0, b: 0)
    /// Opaque white, the default JPEG background for transparent pixels.
    public static let white = RGBA(r: 255, g: 255, b: 255)

    /// `#AARRGGBB` in lowercase hex, the form SDWebImage uses in transformer keys.
    public var hexARGB: String {
        let value = UInt32(a) << 24 | UInt32(r) << 16 | UInt32(g) << 8 | UInt32(b)
        let hex = String(value, radix: 16)
        return "#" + String(repeating: "0", count: 8 - hex.count) + hex
    }

    /// `RGBA(r, g, b, a)`, for test failures and logs.
    public var description: String { "RGBA(\(r), \(g), \(b), \(a))" }

    /// True when every channel differs from `other` by at most `tolerance`.
    public func isClose(to other: RGBA, tolerance: Int) -> Bool {
        abs(Int(r) - Int(other.r)) <= tolerance && abs(Int(g) - Int(other.g)) <= tolerance
            && abs(Int(b) - Int(other.b)) <= tolerance && abs(Int(a) - Int(other.a)) <= tolerance
    }
}
