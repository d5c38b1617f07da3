import CLCMS2

/// The fast path for RGB matrix/TRC profiles (Display P3, Adobe RGB, ProPhoto, most camera and
/// phone profiles): lcms2's own transform, sampled once per profile into tables.
///
/// Such a transform is a curve per channel, a 3×3 matrix into linear sRGB, then the sRGB curve.
/// So linear sRGB is the sum of one contribution per input channel: lcms2 computes each
/// channel's contribution for all 256 values (an unbounded float transform into linear light
/// with sRGB's primaries), and lcms2 computes the 8-bit sRGB encoding of 4096 linear levels.
/// Per pixel that leaves three table reads, two vector adds, a clamp and three byte reads —
/// several times faster than `cmsDoTransform` on 8-bit pixels, within 1 of its output (tests
/// check both).
final class MatrixShaperTables: Sendable {
    /// Linear levels the output table resolves (steps of 1/4095: at most 0.8 of a code value
    /// apart where the sRGB curve is steepest, at black).
    static let levels = 4096
    /// Sub-steps kept below one level, so three rounded contributions add up without drift.
    static let fractionBits: Int32 = 4
    private static let top = Int32((levels - 1) << Int(fractionBits))

    /// Per input value, what the red, green and blue channels add to linear sRGB (x, y, z;
    /// w unused), in 1/16 levels; blue's table also holds the constant term and the rounding.
    private let red: [SIMD4<Int32>]
    private let green: [SIMD4<Int32>]
    private let blue: [SIMD4<Int32>]

    /// Samples `profile`'s transform to sRGB; nil when lcms2 cannot make the float transform.
    init?(profile: LCMSProfile) {
        guard let linear = LCMSProfile.linearSRGB(),
              let transform = cmsCreateTransformTHR(LittleCMS.context, profile.handle, CLCMS2_TYPE_RGB_FLT,
                                                    linear.handle, CLCMS2_TYPE_RGB_FLT,
                                                    ColorConversion.intent, UInt32(cmsFLAGS_NOCACHE)) else {
            return nil
        }
        defer { cmsDeleteTransform(transform) }
        // Inputs: black, then each channel alone at 0…255.
        var input = [Float](repeating: 0, count: (1 + 3 * 256) * 3)
        for channel in 0..<3 {
            for value in 0..<256 {
                input[(1 + channel * 256 + value) * 3 + channel] = Float(value) / 255
            }
        }
        var output = [Float](repeating: 0, count: input.count)
        cmsDoTransform(transform, input, &output, UInt32(input.count / 3))
        guard output.allSatisfy({ $0.isFinite }) else { return nil }
        let scale = Float(Self.top)
        func vector(_ pixel: Int, minus base: Int?) -> SIMD4<Int32> {
            var v = SIMD4<Float>(output[pixel * 3], output[pixel * 3 + 1], output[pixel * 3 + 2], 0)
            if let base { v -= SIMD4<Float>(output[base * 3], output[base * 3 + 1], output[base * 3 + 2], 0) }
            let scaled = (v * scale).rounded(.toNearestOrEven)
            let bounded = scaled.clamped(lowerBound: SIMD4(repeating: -1e8), upperBound: SIMD4(repeating: 1e8))
            return SIMD4<Int32>(bounded)
        }
        let half = SIMD4<Int32>(repeating: 1 << (Self.fractionBits - 1))
        red = (0..<256).map { vector(1 + $0, minus: 0) }
        green = (0..<256).map { vector(1 + 256 + $0, minus: 0) }
        blue = (0..<256).map { vector(1 + 512 + $0, minus: nil) &+ half }
    }

    /// sRGB 8-bit values of the linear levels `0…levels-1`, from lcms2.
    static let encoding: [UInt8] = {
        guard let linear = LCMSProfile.linearSRGB(), let srgb = LCMSProfile.sRGB(),
              let transform = cmsCreateTransformTHR(LittleCMS.context, linear.handle, CLCMS2_TYPE_RGB_FLT,
                                                    srgb.handle, CLCMS2_TYPE_RGB_8, ColorConversion.intent,
                                                    UInt32(cmsFLAGS_NOCACHE)) else {
            return (0..<levels).map { UInt8(($0 * 255 + (levels - 1) / 2) / (levels - 1)) }
        }
        defer { cmsDeleteTransform(transform) }
        var input = [Float](repeating: 0, count: levels * 3)
        for level in 0..<levels {
            let value = Float(level) / Float(levels - 1)
            input[level * 3] = value; input[level * 3 + 1] = value; input[level * 3 + 2] = value
        }
        var output = [UInt8](repeating: 0, count: levels * 3)
        cmsDoTransform(transform, input, &output, UInt32(levels))
        return (0..<levels).map { output[$0 * 3] }
    }()

    /// Converts RGBA pixels in place; alpha is kept.
    func apply(_ pixels: UnsafeMutableBufferPointer<UInt8>) {
        guard let p = pixels.baseAddress else { return }
        let count = pixels.count & ~3
        red.withUnsafeBufferPointer { r in
            green.withUnsafeBufferPointer { g in
                blue.withUnsafeBufferPointer { b in
                    Self.encoding.withUnsafeBufferPointer { e in
                        Self.run(p, count: count, r.baseAddress!, g.baseAddress!, b.baseAddress!, e.baseAddress!)
                    }
                }
            }
        }
    }

    @inline(__always)
    private static func run(_ p: UnsafeMutablePointer<UInt8>, count: Int, _ r: UnsafePointer<SIMD4<Int32>>,
                            _ g: UnsafePointer<SIMD4<Int32>>, _ b: UnsafePointer<SIMD4<Int32>>,
                            _ e: UnsafePointer<UInt8>) {
        let low = SIMD4<Int32>(repeating: 0), high = SIMD4<Int32>(repeating: top)
        var i = 0
        while i < count {
            var sum = r[Int(p[i])] &+ g[Int(p[i &+ 1])] &+ b[Int(p[i &+ 2])]
            sum = sum.clamped(lowerBound: low, upperBound: high) &>> fractionBits
            p[i] = e[Int(sum.x)]
            p[i &+ 1] = e[Int(sum.y)]
            p[i &+ 2] = e[Int(sum.z)]
            i &+= 4
        }
    }
}

extension LCMSProfile {
    /// Linear light with sRGB's primaries and white: the space the fast path adds up in.
    static func linearSRGB() -> LCMSProfile? {
        guard let curve = LCMSCurve.gamma(1) else { return nil }
        defer { cmsFreeToneCurve(curve) }
        let s = PNGChromaticities.sRGB
        return rgb(white: s.white, red: s.red, green: s.green, blue: s.blue, curve: curve)
    }
}
