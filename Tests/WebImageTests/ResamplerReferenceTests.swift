import Foundation
import Testing
@testable import WebImageCodecs

/// The resampler against a direct evaluation of the same filter (every destination pixel as the
/// weighted sum over its whole source footprint, in doubles): the streaming, separable version
/// must agree to the rounding step, shrinking and enlarging, with and without alpha.
@Suite("Resampler against a reference")
struct ResamplerReferenceTests {
    static func noiseBitmap(width: Int, height: Int, alpha: Bool, seed: UInt64) -> Bitmap {
        var state = seed
        return Bitmap(width: width, height: height) { out in
            for i in 0..<out.count {
                state = state &* 6364136223846793005 &+ 1442695040888963407
                out[i] = (i % 4 == 3 && !alpha) ? 255 : UInt8(truncatingIfNeeded: state >> 56)
            }
        }
    }

    static func reference(_ bitmap: Bitmap, to size: PixelSize) -> [UInt8] {
        let xTaps = Resampler.Taps(source: bitmap.width, start: 0, length: Double(bitmap.width), count: size.width)
        let yTaps = Resampler.Taps(source: bitmap.height, start: 0, length: Double(bitmap.height), count: size.height)
        let alpha = bitmap.hasAlpha
        var out = [UInt8](repeating: 0, count: size.width * size.height * 4)
        for y in 0..<size.height {
            for x in 0..<size.width {
                var sum = [Double](repeating: 0, count: 4)
                for ty in 0..<yTaps.counts[y] {
                    let sy = yTaps.first[y] + ty, wy = Double(yTaps.weights[yTaps.offsets[y] + ty])
                    for tx in 0..<xTaps.counts[x] {
                        let sx = xTaps.first[x] + tx, w = wy * Double(xTaps.weights[xTaps.offsets[x] + tx])
                        let p = bitmap.pixel(x: sx, y: sy)
                        let a = Double(p.a)
                        let f = alpha ? w * a / 255 : w
                        sum[0] += Double(p.r) * f; sum[1] += Double(p.g) * f; sum[2] += Double(p.b) * f
                        sum[3] += a * w
                    }
                }
                if alpha {
                    let scale = sum[3] > 0.001 ? 255 / sum[3] : 0
                    for c in 0..<3 { sum[c] *= scale }
                }
                for c in 0..<4 { out[(y * size.width + x) * 4 + c] = UInt8(max(0, min(255, (sum[c] + 0.5).rounded(.down)))) }
            }
        }
        return out
    }

    @Test(arguments: [
        (PixelSize(width: 97, height: 61), PixelSize(width: 40, height: 23)),
        (PixelSize(width: 64, height: 64), PixelSize(width: 9, height: 7)),
        (PixelSize(width: 20, height: 13), PixelSize(width: 47, height: 31)),
        (PixelSize(width: 50, height: 40), PixelSize(width: 80, height: 17)),
    ])
    func streamingMatchesTheDirectSum(source: PixelSize, target: PixelSize) {
        for alpha in [false, true] {
            let bitmap = Self.noiseBitmap(width: source.width, height: source.height, alpha: alpha, seed: 42)
            let result = Resampler.resize(bitmap, to: target, filter: .area)
            let expected = Self.reference(bitmap, to: target)
            #expect(result.size == target)
            let worst = zip(result.pixels, expected).map { abs(Int($0) - Int($1)) }.max() ?? 0
            #expect(worst <= 1, "\(source) → \(target), alpha \(alpha): off by \(worst)")
        }
    }
}
