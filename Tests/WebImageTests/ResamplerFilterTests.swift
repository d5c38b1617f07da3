import Foundation
import Testing
@testable import WebImageCodecs

/// The convolution filters against a direct evaluation written here from their definitions, in
/// doubles (each output pixel as the 2-D sum over its footprint, alpha premultiplied): the
/// streaming float resampler must agree within one level. Then the pixels of the simplest filters,
/// alpha edges, and a ring smaller than the filter's reach.
@Suite("Resampler filters")
struct ResamplerFilterTests {
    static func sinc(_ x: Double) -> Double { x == 0 ? 1 : sin(.pi * x) / (.pi * x) }

    static func kernel(_ filter: ResamplingFilter, _ x: Double) -> Double {
        let x = abs(x)
        switch filter {
        case .lanczos3: return x < 3 ? sinc(x) * sinc(x / 3) : 0
        case .lanczos2: return x < 2 ? sinc(x) * sinc(x / 2) : 0
        case .linear: return max(0, 1 - x)
        case .cubic: // Keys' cubic with a = -0.5
            if x < 1 { return 1.5 * x * x * x - 2.5 * x * x + 1 }
            if x < 2 { return -0.5 * x * x * x + 2.5 * x * x - 4 * x + 2 }
            return 0
        default: Issue.record("no reference for \(filter)"); return 0
        }
    }

    /// Weights of every source index for output index `i` along an axis of `n` → `m`: the kernel
    /// stretched by the reduction, taps outside the axis dropped and the rest renormalised.
    static func axisWeights(_ filter: ResamplingFilter, n: Int, m: Int, i: Int) -> [(Int, Double)] {
        let scale = Double(n) / Double(m), stretch = max(scale, 1)
        let centre = (Double(i) + 0.5) * scale
        var taps: [(Int, Double)] = []
        for s in 0..<n {
            let w = kernel(filter, (Double(s) + 0.5 - centre) / stretch)
            if w != 0 { taps.append((s, w)) }
        }
        let total = taps.reduce(0) { $0 + $1.1 }
        return taps.map { ($0.0, $0.1 / total) }
    }

    static func reference(_ bitmap: Bitmap, to size: PixelSize, filter: ResamplingFilter) -> [UInt8] {
        let alpha = bitmap.hasAlpha
        let xs = (0..<size.width).map { axisWeights(filter, n: bitmap.width, m: size.width, i: $0) }
        let ys = (0..<size.height).map { axisWeights(filter, n: bitmap.height, m: size.height, i: $0) }
        let px = bitmap.pixels
        var out = [UInt8](repeating: 0, count: size.width * size.height * 4)
        for y in 0..<size.height {
            for x in 0..<size.width {
                var sum = [0.0, 0.0, 0.0, 0.0]
                for (sy, wy) in ys[y] {
                    for (sx, wx) in xs[x] {
                        let i = (sy * bitmap.width + sx) * 4, w = wx * wy
                        let a = Double(px[i + 3])
                        let f = alpha ? w * a / 255 : w
                        for c in 0..<3 { sum[c] += Double(px[i + c]) * f }
                        sum[3] += a * w
                    }
                }
                if alpha {
                    let scale = sum[3] > 0.001 ? 255 / sum[3] : 0
                    for c in 0..<3 { sum[c] *= scale }
                }
                for c in 0..<4 {
                    out[(y * size.width + x) * 4 + c] = UInt8(max(0, min(255, (sum[c] + 0.5).rounded(.down))))
                }
            }
        }
        return out
    }

    /// Smooth shapes and sharp edges: a sine pattern with a bright bar and a hard step.
    static func pattern(width: Int, height: Int, alpha: Bool) -> Bitmap {
        Bitmap(width: width, height: height) { out in
            for y in 0..<height {
                for x in 0..<width {
                    let i = (y * width + x) * 4
                    let wave = 127.5 + 127.5 * sin(Double(x) * 0.37) * cos(Double(y) * 0.23)
                    out[i] = UInt8(wave.rounded())
                    out[i + 1] = x > width / 2 ? 240 : 16
                    out[i + 2] = (y / 3) % 2 == 0 ? 255 : 0
                    out[i + 3] = alpha ? UInt8((x * 255) / max(width - 1, 1)) : 255
                }
            }
        }
    }

    static func worst(_ a: [UInt8], _ b: [UInt8]) -> Int {
        zip(a, b).map { abs(Int($0) - Int($1)) }.max() ?? 0
    }

    @Test(arguments: [ResamplingFilter.lanczos3, .lanczos2, .cubic, .linear])
    func theStreamingFilterMatchesTheDefinition(filter: ResamplingFilter) {
        let cases = [(PixelSize(width: 97, height: 61), PixelSize(width: 40, height: 23)),
                     (PixelSize(width: 128, height: 96), PixelSize(width: 17, height: 13)),
                     (PixelSize(width: 21, height: 13), PixelSize(width: 47, height: 31)),
                     (PixelSize(width: 50, height: 40), PixelSize(width: 80, height: 17))]
        for (source, target) in cases {
            for alpha in [false, true] {
                let bitmap = Self.pattern(width: source.width, height: source.height, alpha: alpha)
                let reference = Self.reference(bitmap, to: target, filter: filter)
                // The kernels this processor runs, then the portable C other processors run.
                for portable in [false, true] {
                    let result = Self.resize(bitmap, to: target, filter: filter, portable: portable)
                    #expect(result.size == target)
                    let off = Self.worst(result.pixels, reference)
                    #expect(off <= 1, "\(filter) \(source) → \(target), alpha \(alpha), portable \(portable): off by \(off)")
                }
            }
        }
    }

    static func resize(_ bitmap: Bitmap, to size: PixelSize, filter: ResamplingFilter, portable: Bool) -> Bitmap {
        Resampler.resize(bitmap, window: .init(x: 0, y: 0, width: Double(bitmap.width), height: Double(bitmap.height)),
                         to: size, filter: filter, portable: portable)
    }

    @Test func lanczos3IsTheDefault() {
        let bitmap = Self.pattern(width: 64, height: 48, alpha: false)
        let target = PixelSize(width: 20, height: 15)
        #expect(Resampler.resize(bitmap, to: target) == Resampler.resize(bitmap, to: target, filter: .lanczos3))
        #expect(Resampler.resize(bitmap, to: target) != Resampler.resize(bitmap, to: target, filter: .area))
        #expect(DecodeOptions().resamplingFilter == .lanczos3)
    }

    @Test func theResizeTransformerNamesAFilterOtherThanTheDefault() {
        let size = PointSize(width: 10, height: 20)
        let plain = ResizingTransformer(size: size).transformerKey
        #expect(plain.hasSuffix("},0)"))
        #expect(ResizingTransformer(size: size, filter: .lanczos3).transformerKey == plain)
        #expect(ResizingTransformer(size: size, filter: .area).transformerKey == String(plain.dropLast()) + ",area)")
        let image = Image(bitmap: Self.pattern(width: 40, height: 60, alpha: false), format: .png)
        let area = ResizingTransformer(size: size, filter: .area).transform(image, forKey: "")
        #expect(area?.bitmap == Resampler.resize(image.bitmap, to: PixelSize(width: 10, height: 20), filter: .area))
    }

    /// Opaque red beside fully transparent green: every pixel with any alpha stays pure red,
    /// however the lobes of the kernel mix the two.
    @Test(arguments: [ResamplingFilter.lanczos3, .lanczos2, .cubic, .linear, .area])
    func transparentPixelsLendNoColour(filter: ResamplingFilter) {
        let bitmap = Bitmap(width: 40, height: 10) { out in
            for i in stride(from: 0, to: out.count, by: 4) {
                let x = (i / 4) % 40
                let red: [UInt8] = [255, 0, 0, 255], clearGreen: [UInt8] = [0, 255, 0, 0]
                let p = (x / 5) % 2 == 0 ? red : clearGreen
                for c in 0..<4 { out[i + c] = p[c] }
            }
        }
        for target in [PixelSize(width: 13, height: 4), PixelSize(width: 57, height: 10)] {
            let result = Resampler.resize(bitmap, to: target, filter: filter)
            var partial = 0
            for y in 0..<target.height {
                for x in 0..<target.width {
                    let p = result.pixel(x: x, y: y)
                    guard p.a > 0 else { continue }
                    if p.a < 255 { partial += 1 }
                    #expect(p.r >= 254 && p.g <= 1 && p.b <= 1, "\(filter) \(target) at \(x),\(y): \(p)")
                }
            }
            #expect(partial > 0, "\(filter) \(target): the edges were not blended at all")
        }
    }

    /// Nearest keeps the source pixel under each destination pixel's centre.
    @Test func nearestPicksTheSourcePixelUnderEachCentre() {
        let source = Bitmap(width: 6, height: 4) { out in
            for i in stride(from: 0, to: out.count, by: 4) {
                out[i] = UInt8(i / 4 % 6 * 40); out[i + 1] = UInt8(i / 4 / 6 * 60); out[i + 2] = 7; out[i + 3] = 255
            }
        }
        let result = Resampler.resize(source, to: PixelSize(width: 3, height: 2), filter: .nearest)
        for y in 0..<2 {
            for x in 0..<3 {
                #expect(result.pixel(x: x, y: y) == source.pixel(x: 2 * x + 1, y: 2 * y + 1))
            }
        }
        let larger = Resampler.resize(source, to: PixelSize(width: 12, height: 8), filter: .nearest)
        #expect(larger.pixel(x: 5, y: 3) == source.pixel(x: 2, y: 1))
        #expect(larger.pixel(x: 11, y: 7) == source.pixel(x: 5, y: 3))
    }

    /// Linear enlarging is bilinear interpolation between pixel centres, the ends held.
    @Test func linearEnlargingInterpolatesBetweenCentres() {
        let source = Bitmap(width: 2, height: 1, pixels: [0, 0, 0, 255, 200, 100, 40, 255])
        let result = Resampler.resize(source, to: PixelSize(width: 4, height: 1), filter: .linear)
        #expect(result.pixels == [0, 0, 0, 255, 50, 25, 10, 255, 150, 75, 30, 255, 200, 100, 40, 255])
    }

    /// A result so wide that the ring cannot hold every source row one output row needs: the rows
    /// that fall out are resampled again, and the pixels are the same.
    @Test func aRingSmallerThanTheFilterGivesTheSamePixels() {
        let bitmap = Self.pattern(width: 3, height: 40, alpha: true)
        let target = PixelSize(width: Resampler.ringBudget / 3, height: 1)
        let reference = Self.reference(bitmap, to: target, filter: .lanczos3)
        for portable in [false, true] {
            let result = Self.resize(bitmap, to: target, filter: .lanczos3, portable: portable)
            #expect(Self.worst(result.pixels, reference) <= 1, "portable \(portable)")
        }
    }
}

extension ResamplerFilterTests {
    /// The fixed-point weights of the opaque horizontal pass: each destination pixel's weights
    /// sum to one in fixed point (flat areas stay exact), in pairs repeated four times.
    @Test(arguments: [(2000, 512), (1000, 512), (512, 1000), (37, 5), (7, 7)])
    func fixedPointWeightsKeepEachPixelsSum(_ source: Int, _ count: Int) throws {
        let taps = Resampler.Taps(source: source, start: 0, length: Double(source), count: count, filter: .lanczos3)
        let width = ((taps.counts.max() ?? 1) + 1) & ~1
        let table = try #require(taps.pairedFixedWeights(width: width))
        #expect(table.count == count * width * 2)
        for index in 0..<count {
            let row = Array(table[(index * width * 2)..<((index + 1) * width * 2)])
            var sum = 0
            for pair in 0..<(width / 2) {
                let lanes = row[(4 * pair)..<(4 * pair + 4)]
                #expect(Set(lanes).count == 1)
                let value = UInt32(bitPattern: lanes.first!)
                sum += Int(Int16(truncatingIfNeeded: value)) + Int(Int16(truncatingIfNeeded: value >> 16))
            }
            #expect(sum == 1 << 14, "pixel \(index)")
        }
    }
}
