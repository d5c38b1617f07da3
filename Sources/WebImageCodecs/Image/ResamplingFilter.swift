import Foundation

/// The filter ``Resampler`` weighs source pixels with when it changes an image's size.
///
/// The convolution filters (every case but ``area``) are stretched by the reduction factor when
/// shrinking, so each destination pixel sees the whole part of the source it stands for; enlarging
/// they interpolate. Their names are imgproxy's (`resizing_algorithm`).
public enum ResamplingFilter: String, Sendable, Hashable, CaseIterable {
    /// The closest source pixel: blocky, no new colours.
    case nearest
    /// The triangle filter (bilinear when enlarging).
    case linear
    /// Catmull-Rom cubic (a = −0.5).
    case cubic
    /// Lanczos windowed sinc over 2 lobes.
    case lanczos2
    /// Lanczos windowed sinc over 3 lobes: the sharpest here, as libvips, imgproxy and Pillow
    /// make thumbnails. The default.
    case lanczos3
    /// The mean of every source pixel a destination pixel covers, exact for fractional coverage
    /// (a box filter); bilinear when enlarging. Softer than lanczos and cheaper.
    case area

    /// The filter thumbnails and resizes use unless asked otherwise: ``lanczos3``.
    public static let `default` = ResamplingFilter.lanczos3

    /// How far from its centre the kernel reaches, in destination pixels; 0 for ``nearest`` and
    /// ``area``, which are not kernels.
    var radius: Double {
        switch self {
        case .nearest, .area: 0
        case .linear: 1
        case .cubic, .lanczos2: 2
        case .lanczos3: 3
        }
    }

    /// The kernel's weight at distance `x` (in destination pixels) from a destination pixel's centre.
    func weight(_ x: Double) -> Double {
        let x = abs(x)
        switch self {
        case .nearest, .area:
            return x < 0.5 ? 1 : 0
        case .linear:
            return x < 1 ? 1 - x : 0
        case .cubic:
            let a = -0.5
            if x < 1 { return ((a + 2) * x - (a + 3)) * x * x + 1 }
            if x < 2 { return ((a * x - 5 * a) * x + 8 * a) * x - 4 * a }
            return 0
        case .lanczos2:
            return Self.lanczos(x, lobes: 2)
        case .lanczos3:
            return Self.lanczos(x, lobes: 3)
        }
    }

    private static func lanczos(_ x: Double, lobes: Double) -> Double {
        if x == 0 { return 1 }
        guard x < lobes else { return 0 }
        let px = Double.pi * x
        return lobes * sin(px) * sin(px / lobes) / (px * px)
    }
}
