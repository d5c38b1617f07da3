import CJPEGRows
import CTurboJPEG

/// One TurboJPEG decompressor handle, for reading a JPEG's header (the pixels come from
/// ``JPEGRowDecoder``), destroyed with this object. Not shared between threads: each decode
/// makes its own.
final class TurboJPEGDecompressor {
    /// What `tjDecompressHeader3` reports.
    struct Info {
        var size: PixelSize
        var colorspace: Int32
        /// CMYK and YCCK files cannot be converted to RGB by libjpeg; they decode as CMYK.
        var isCMYK: Bool { colorspace == Int32(TJCS_CMYK.rawValue) || colorspace == Int32(TJCS_YCCK.rawValue) }
    }

    private let handle: tjhandle

    init() throws {
        guard let handle = tjInitDecompress() else {
            throw WebImageError.badData("Could not create a TurboJPEG decompressor: \(Self.globalError()).")
        }
        self.handle = handle
    }

    deinit { tjDestroy(handle) }

    /// Reads the frame size and colour space; throws ``WebImageError/Code/badImageData`` if
    /// neither TurboJPEG nor libjpeg itself can read the header. TurboJPEG refuses sampling
    /// layouts it has no name for (a CMYK file sampled 2×2,1×1,1×1,1×1, say), which libjpeg's
    /// own header reader, and the pixel decode (``JPEGRowDecoder``), take.
    func readHeader(_ jpeg: UnsafeBufferPointer<UInt8>) throws -> Info {
        var width: Int32 = 0, height: Int32 = 0, subsampling: Int32 = 0, colorspace: Int32 = 0
        guard let base = jpeg.baseAddress else { throw WebImageError.badData("The JPEG data is empty.") }
        let result = tjDecompressHeader3(handle, base, UInt(jpeg.count), &width, &height, &subsampling, &colorspace)
        // A warning (such as stray bytes between markers) still yields a usable header.
        if result != 0 && tjGetErrorCode(handle) != Int32(TJERR_WARNING.rawValue) {
            let turboError = errorText()
            guard let info = Self.libjpegHeader(jpeg) else {
                throw WebImageError.badData("The JPEG header could not be read: \(turboError).")
            }
            return info
        }
        guard width > 0, height > 0 else {
            throw WebImageError.badData("The JPEG header declares an empty image (\(width)x\(height)).")
        }
        return Info(size: PixelSize(width: Int(width), height: Int(height)), colorspace: colorspace)
    }

    /// The header as libjpeg's `jpeg_read_header` reads it; nil when it fails too.
    private static func libjpegHeader(_ jpeg: UnsafeBufferPointer<UInt8>) -> Info? {
        var width: Int32 = 0, height: Int32 = 0
        var color = WEBIMAGE_JPEG_COLOR_RGB
        var message = [CChar](repeating: 0, count: 256)
        let rc = message.withUnsafeMutableBufferPointer { text in
            webimage_jpeg_read_header(jpeg.baseAddress, jpeg.count, &width, &height, &color, text.baseAddress, text.count)
        }
        guard rc == 0, width > 0, height > 0 else { return nil }
        let colorspace: TJCS = switch color {
        case WEBIMAGE_JPEG_COLOR_GRAY: TJCS_GRAY
        case WEBIMAGE_JPEG_COLOR_CMYK: TJCS_CMYK
        default: TJCS_YCbCr
        }
        return Info(size: PixelSize(width: Int(width), height: Int(height)), colorspace: Int32(colorspace.rawValue))
    }

    private func errorText() -> String {
        guard let text = tjGetErrorStr2(handle) else { return "unknown TurboJPEG error" }
        return String(cString: text)
    }

    private static func globalError() -> String {
        guard let text = tjGetErrorStr2(nil) else { return "unknown TurboJPEG error" }
        return String(cString: text)
    }
}

/// The DCT scaling factors TurboJPEG offers, and the choice of one for a target size.
enum JPEGScaling {
    struct Factor: Sendable, Equatable {
        let num: Int
        let denom: Int
        /// TurboJPEG's `TJSCALED`: the dimension scaled and rounded up.
        func scaled(_ size: PixelSize) -> PixelSize {
            PixelSize(width: (size.width * num + denom - 1) / denom, height: (size.height * num + denom - 1) / denom)
        }
    }

    /// The factors at or below 1, smallest first.
    static let downscaleFactors: [Factor] = {
        var count: Int32 = 0
        guard let list = tjGetScalingFactors(&count), count > 0 else { return [Factor(num: 1, denom: 1)] }
        // A plain loop: the equivalent map/filter/sorted chain took the type checker over 20 s.
        var factors: [Factor] = []
        for index in 0..<Int(count) {
            let factor = Factor(num: Int(list[index].num), denom: Int(list[index].denom))
            if factor.num > 0 && factor.num <= factor.denom { factors.append(factor) }
        }
        factors.sort { (a: Factor, b: Factor) -> Bool in a.num * b.denom < b.num * a.denom }
        return factors.isEmpty ? [Factor(num: 1, denom: 1)] : factors
    }()

    /// The factor a decode of `full` for `target` uses, within `maxPixels`:
    /// 1. the smallest of 1/8, 1/4, 1/2 and 1 whose decode covers `target` on both sides;
    /// 2. failing that (`maxPixels` forbids it), the smallest of all factors that covers it;
    /// 3. failing that, the largest factor within `maxPixels` (the caller then shrinks its target).
    ///
    /// `nil` when even the smallest factor passes `maxPixels`. The powers of two come first
    /// because libjpeg-turbo's inverse DCTs for 8×8, 4×4, 2×2 and 1×1 outputs are SIMD, and the
    /// others are scalar C: on a 2040×1356 photo, 3/8 decodes slower than 1/2, and 3/4, 5/8 and 7/8
    /// slower than the whole image (17.1, 15.7 and 22.4 ms against 11.4 ms); the resampler then
    /// makes up the difference in size for less than the scalar DCT costs.
    static func factor(for full: PixelSize, target: PixelSize, maxPixels: Int) -> Factor? {
        if let fast = smallestCovering(full, target, maxPixels, among: fastFactors) { return fast }
        if let any = smallestCovering(full, target, maxPixels, among: downscaleFactors) { return any }
        return downscaleFactors.last { $0.scaled(full).area <= maxPixels }
    }

    /// The factors with SIMD inverse DCTs in libjpeg-turbo (1/8, 1/4, 1/2, 1), smallest first.
    static let fastFactors: [Factor] = downscaleFactors.filter { $0.num == 1 }

    private static func smallestCovering(_ full: PixelSize, _ target: PixelSize, _ maxPixels: Int,
                                         among factors: [Factor]) -> Factor? {
        for factor in factors {
            let scaled = factor.scaled(full)
            guard scaled.area <= maxPixels else { return nil }
            if scaled.width >= target.width && scaled.height >= target.height { return factor }
        }
        return nil
    }
}
