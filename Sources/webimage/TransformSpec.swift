import ArgumentParser
import Foundation
import WebImage

/// Parses `--transform` specs into the library's transformers.
///
/// Grammar (sizes in points, colours as `#RRGGBB` or `#RRGGBBAA`):
/// `resize:WxH[:fill|fit|aspectFill]`, `crop:X,Y,W,H`, `round:RADIUS[:BORDER[:#RRGGBBAA]]`,
/// `flip:h|v|hv`, `rotate:DEGREES[:fit]`, `tint:#RRGGBBAA`, `blur:RADIUS`.
enum TransformSpec {
    /// The spec's transformer; a usage error naming `spec` when it does not parse.
    static func parse(_ spec: String) throws -> any ImageTransforming {
        let parts = spec.split(separator: ":", omittingEmptySubsequences: false).map(String.init)
        let arguments = Array(parts.dropFirst())
        func fail(_ expected: String) -> ValidationError {
            ValidationError("Bad --transform '\(spec)': expected \(expected).")
        }
        switch parts[0].lowercased() {
        case "resize":
            guard (1...2).contains(arguments.count),
                  let size = PointSize(parsing: arguments[0]) else { throw fail("resize:WxH[:fill|fit|aspectFill]") }
            let mode: ImageScaleMode
            switch arguments.count == 2 ? arguments[1].lowercased() : "fill" {
            case "fill": mode = .fill
            case "fit", "aspectfit": mode = .aspectFit
            case "aspectfill": mode = .aspectFill
            default: throw fail("a resize mode of fill, fit or aspectFill")
            }
            return ResizingTransformer(size: size, scaleMode: mode)
        case "crop":
            let numbers = arguments.count == 1 ? arguments[0].split(separator: ",").compactMap { finite(String($0)) } : []
            guard numbers.count == 4, numbers[0] >= 0, numbers[1] >= 0, numbers[2] > 0, numbers[3] > 0 else {
                throw fail("crop:X,Y,W,H with X,Y ≥ 0 and W,H > 0")
            }
            return CroppingTransformer(rect: PointRect(x: numbers[0], y: numbers[1], width: numbers[2], height: numbers[3]))
        case "round":
            guard (1...3).contains(arguments.count), let radius = finite(arguments[0]), radius >= 0 else {
                throw fail("round:RADIUS[:BORDER[:#RRGGBBAA]] with RADIUS ≥ 0")
            }
            let border = arguments.count >= 2 ? finite(arguments[1]) : 0
            guard let border, border >= 0 else { throw fail("a border width ≥ 0") }
            var color: RGBA? = border > 0 ? .black : nil
            if arguments.count == 3 {
                guard let parsed = RGBA(hex: arguments[2]) else { throw fail("a border colour #RRGGBB or #RRGGBBAA") }
                color = parsed
            }
            return RoundCornerTransformer(cornerRadius: radius, borderWidth: border, borderColor: color)
        case "flip":
            guard arguments.count == 1 else { throw fail("flip:h|v|hv") }
            switch arguments[0].lowercased() {
            case "h": return FlippingTransformer(horizontal: true, vertical: false)
            case "v": return FlippingTransformer(horizontal: false, vertical: true)
            case "hv", "vh": return FlippingTransformer(horizontal: true, vertical: true)
            default: throw fail("flip:h|v|hv")
            }
        case "rotate":
            guard (1...2).contains(arguments.count), let degrees = finite(arguments[0]),
                  arguments.count == 1 || arguments[1].lowercased() == "fit" else {
                throw fail("rotate:DEGREES[:fit]")
            }
            return RotationTransformer(angle: degrees * .pi / 180, fitSize: arguments.count == 2)
        case "tint":
            guard arguments.count == 1, let color = RGBA(hex: arguments[0]) else { throw fail("tint:#RRGGBBAA") }
            return TintTransformer(color: color)
        case "blur":
            guard arguments.count == 1, let radius = finite(arguments[0]), radius >= 0 else {
                throw fail("blur:RADIUS with RADIUS ≥ 0")
            }
            return BlurTransformer(radius: radius)
        default:
            throw ValidationError("Unknown --transform '\(spec)': use resize, crop, round, flip, rotate, tint or blur.")
        }
    }

    /// One transformer for all `specs`: nil for none, the transformer itself for one, else a
    /// pipeline applying them in order.
    static func transformer(for specs: [String]) throws -> (any ImageTransforming)? {
        let transformers = try specs.map(parse)
        switch transformers.count {
        case 0: return nil
        case 1: return transformers[0]
        default: return PipelineTransformer(transformers)
        }
    }

    private static func finite(_ text: String) -> Double? {
        guard let value = Double(text), value.isFinite else { return nil }
        return value
    }
}

extension PointSize {
    /// Parses `WxH` with positive finite numbers (e.g. `200x100`, `64.5x64`).
    init?(parsing text: String) {
        let parts = text.lowercased().split(separator: "x", omittingEmptySubsequences: false)
        guard parts.count == 2, let w = Double(parts[0]), let h = Double(parts[1]),
              w.isFinite, h.isFinite, w > 0, h > 0 else { return nil }
        self.init(width: w, height: h)
    }
}

extension RGBA {
    /// Parses `#RRGGBB` or `#RRGGBBAA` (the `#` optional); nil otherwise.
    init?(hex text: String) {
        let digits = text.hasPrefix("#") ? String(text.dropFirst()) : text
        guard digits.count == 6 || digits.count == 8,
              digits.allSatisfy(\.isHexDigit), let value = UInt32(digits, radix: 16) else { return nil }
        let full = digits.count == 6 ? value << 8 | 0xFF : value
        self.init(r: UInt8(full >> 24), g: UInt8(full >> 16 & 0xFF), b: UInt8(full >> 8 & 0xFF), a: UInt8(full & 0xFF))
    }
}
