import Foundation

/// The sRGB transfer function both ways, as BlurHash defines it.
enum SRGBTransfer {
    /// Linear light (0–1) for each 8-bit sRGB value.
    static let linear: [Double] = (0..<256).map { value in
        let v = Double(value) / 255
        return v <= 0.04045 ? v / 12.92 : pow((v + 0.055) / 1.055, 2.4)
    }

    /// The 8-bit sRGB value for linear light `value` (clamped to 0–1), rounded half up.
    static func encode(_ value: Double) -> Int {
        let v = value.isNaN ? 0 : min(1, max(0, value))
        let s = v <= 0.0031308 ? v * 12.92 : 1.055 * pow(v, 1 / 2.4) - 0.055
        return Int(s * 255 + 0.5)
    }
}
