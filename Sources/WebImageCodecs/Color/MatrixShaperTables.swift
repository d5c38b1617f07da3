import CLCMS2
import CMatrixShaper

/// The fast path for RGB matrix/TRC profiles (Display P3, Adobe RGB, ProPhoto, most camera and
/// phone profiles): lcms2's own transform, sampled once per profile into tables.
///
/// Such a transform is a curve per channel, a 3×3 matrix into linear sRGB, then the sRGB curve.
/// So linear sRGB is the sum of one contribution per input channel: lcms2 computes each
/// channel's contribution for all 256 values (an unbounded float transform into linear light
/// with sRGB's primaries), and lcms2 computes the 8-bit sRGB encoding of 16384 linear levels.
///
/// A channel's contribution to the three outputs is kept as three 16-bit fields of one 64-bit
/// word, so a pixel costs three table reads, two integer adds and three byte reads from the
/// encoding table, which also does the clamping (it has an entry for every sum the tables can
/// make, below black and above white). The loop is C (`CMatrixShaper`): under half the time of
/// a loop of vector reads per channel, within 1 of `cmsDoTransform` (tests check both).
final class MatrixShaperTables: Sendable {
    /// Linear levels from black to white (`1 << levelBits`): steps of 1/16384, at most 0.2 of a
    /// code value apart where the sRGB curve is steepest, at black, so three rounded
    /// contributions stay well within one code value.
    static let levelBits = 14

    /// 3 × 256 words: red, green, blue input values; fields as `webimage_matrix_shaper_convert`
    /// reads them.
    private let channels: [UInt64]
    /// The output byte of every field sum from 0 to the largest the tables can make.
    private let encode: [UInt8]

    /// Samples `profile`'s transform to sRGB; nil when lcms2 cannot make the float transform or
    /// when the profile's gamut is so wide that its sums do not fit the 16-bit fields.
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
        guard output.allSatisfy({ $0.isFinite && abs($0) < 8 }) else { return nil }
        guard let fields = Self.fields(output) else { return nil }
        channels = fields.channels
        encode = (0...fields.largest).map { sum in
            Self.encoding[min(max(sum - fields.bias, 0), 1 << Self.levelBits)]
        }
    }

    /// The contributions in levels, rounded, packed into words; nil when a field's sums would
    /// not fit in 16 bits.
    private static func fields(_ output: [Float]) -> (channels: [UInt64], bias: Int, largest: Int)? {
        let scale = Double(1 << levelBits)
        // contribution[channel][value][field]; blue's includes the output for black (the constant term).
        var contribution = [[[Int]]](repeating: [[Int]](repeating: [0, 0, 0], count: 256), count: 3)
        for channel in 0..<3 {
            for value in 0..<256 {
                let pixel = 1 + channel * 256 + value
                for field in 0..<3 {
                    let black = channel == 2 ? 0 : Double(output[field])
                    contribution[channel][value][field] = Int(((Double(output[pixel * 3 + field]) - black) * scale)
                        .rounded(.toNearestOrEven))
                }
            }
        }
        var lowest = 0, highest = 0
        for field in 0..<3 {
            var low = 0, high = 0
            for channel in 0..<3 {
                low += contribution[channel].map { $0[field] }.min()!
                high += contribution[channel].map { $0[field] }.max()!
            }
            lowest = min(lowest, low)
            highest = max(highest, high)
        }
        let bias = -lowest
        guard highest + bias <= Int(UInt16.max) else { return nil }
        var channels = [UInt64](repeating: 0, count: 3 * 256)
        for channel in 0..<3 {
            for value in 0..<256 {
                var word: Int64 = 0
                for field in 0..<3 {
                    let level = contribution[channel][value][field] + (channel == 2 ? bias : 0)
                    word &+= Int64(level) &<< Int64(16 * field)
                }
                channels[channel * 256 + value] = UInt64(bitPattern: word)
            }
        }
        return (channels, bias, highest + bias)
    }

    /// sRGB 8-bit values of the linear levels `0…1 << levelBits`, from lcms2.
    static let encoding: [UInt8] = {
        let levels = (1 << levelBits) + 1
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
        channels.withUnsafeBufferPointer { c in
            encode.withUnsafeBufferPointer { e in
                webimage_matrix_shaper_convert(p, pixels.count / 4, c.baseAddress!, e.baseAddress!)
            }
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
