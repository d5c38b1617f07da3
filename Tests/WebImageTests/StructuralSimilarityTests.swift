import Foundation
import Testing
import WebImageCodecs

/// SSIM against values computed apart from the library: a NumPy script (run once, by the author)
/// that takes each 11×11 window whole (the 2-D Gaussian as an outer product, σ = 1.5, normalised),
/// not separably as the library does, with K1 = 0.01, K2 = 0.03, L = 255, averaged over every
/// window inside the image:
///
///     def ssim(a, b):  # a, b: 2-D float64 arrays
///         side = min(11, *a.shape); c = (side - 1) / 2
///         g = np.exp(-((np.arange(side) - c) ** 2) / 4.5); g /= g.sum(); w = np.outer(g, g)
///         for each window (pa, pb): mx, my = (w*pa).sum(), (w*pb).sum();
///             vx = (w*pa*pa).sum() - mx*mx; vy likewise; cov = (w*pa*pb).sum() - mx*my
///             ssim = (2 mx my + C1)(2 cov + C2) / ((mx² + my² + C1)(vx + vy + C2)); mean of all
///
/// The pinned values carry a tolerance of 1e-5: the library filters in Float.
@Suite("SSIM matches an independent computation")
struct StructuralSimilarityTests {
    /// 20×16 luma `(12x + 5y) & 255`: ramps with wrap-around edges.
    static func ramps(width: Int = 20, height: Int = 16) -> [UInt8] {
        var values: [UInt8] = []
        for y in 0..<height {
            for x in 0..<width { values.append(UInt8((x * 12 + y * 5) & 255)) }
        }
        return values
    }

    @Test func identicalImagesScoreOne() throws {
        let plane = LumaPlane(width: 20, height: 16, values: Self.ramps())
        #expect(try #require(StructuralSimilarity.index(plane, plane)) == 1)
        let bitmap = TestBitmaps.gradient(width: 40, height: 30, alpha: true)
        #expect(try #require(StructuralSimilarity.index(bitmap, bitmap)) == 1)
    }

    /// Small noise, `((x·y) mod 7) − 3` added (clamped): NumPy gives 0.9947623917347637.
    @Test func smallNoiseMatchesTheReference() throws {
        let a = Self.ramps()
        var b: [UInt8] = []
        for y in 0..<16 {
            for x in 0..<20 { b.append(UInt8(clamping: Int(a[y * 20 + x]) + (x * y) % 7 - 3)) }
        }
        let index = try #require(StructuralSimilarity.index(LumaPlane(width: 20, height: 16, values: a),
                                                             LumaPlane(width: 20, height: 16, values: b)))
        #expect(abs(index - 0.9947623917347637) < 1e-5, "\(index)")
    }

    /// Contrast halved, `a / 2 + 64`: NumPy gives 0.8139337485196877.
    @Test func halvedContrastMatchesTheReference() throws {
        let a = Self.ramps()
        let b = a.map { $0 / 2 + 64 }
        let index = try #require(StructuralSimilarity.index(LumaPlane(width: 20, height: 16, values: a),
                                                             LumaPlane(width: 20, height: 16, values: b)))
        #expect(abs(index - 0.8139337485196877) < 1e-5, "\(index)")
    }

    /// An 8×6 image, smaller than the window: one 6×6 window side (the Gaussian truncated),
    /// `(30x + 20y) mod 256` against it plus `((x + y) mod 3) · 4`: NumPy gives 0.9976120980582278.
    @Test func imagesSmallerThanTheWindowUseTheirShorterSide() throws {
        var a: [UInt8] = [], b: [UInt8] = []
        for y in 0..<6 {
            for x in 0..<8 {
                let value = (x * 30 + y * 20) % 256
                a.append(UInt8(value))
                b.append(UInt8(clamping: value + (x + y) % 3 * 4))
            }
        }
        let index = try #require(StructuralSimilarity.index(LumaPlane(width: 8, height: 6, values: a),
                                                             LumaPlane(width: 8, height: 6, values: b)))
        #expect(abs(index - 0.9976120980582278) < 1e-5, "\(index)")
    }

    /// Luma is BT.601 in integers over the background: white over white is 255, transparent
    /// black over white is white, opaque pure green is (150·255 + 128) >> 8 = 149.
    @Test func lumaCompositesOverTheBackground() {
        let pixels: [UInt8] = [255, 255, 255, 255, 0, 0, 0, 0, 0, 255, 0, 255]
        let plane = LumaPlane(Bitmap(width: 3, height: 1, pixels: pixels), over: .white)
        #expect(plane.values == [255, 255, 149])
        #expect(LumaPlane(Bitmap(width: 3, height: 1, pixels: pixels), over: .black).values == [255, 0, 149])
    }

    @Test func differentSizesHaveNoIndex() {
        let a = Bitmap(width: 4, height: 4, fill: .white), b = Bitmap(width: 4, height: 5, fill: .white)
        #expect(StructuralSimilarity.index(a, b) == nil)
    }
}
