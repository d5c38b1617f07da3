/// Turning CMYK pixels, as TurboJPEG decodes CMYK and YCCK files, into RGBA when the file has
/// no colour profile (with one, lcms2 converts them: ``ColorConversion``).
///
/// Nearly all CMYK JPEGs come from Adobe software, which marks them with an APP14 `Adobe` marker
/// and stores the ink amounts inverted (0 = full ink, 255 = none). So each stored channel is
/// already "how much light passes", and the naive conversion is `R = C × K / 255` (likewise G
/// from M, B from Y), the formula browsers and Pillow use without a profile. Files without the
/// marker store plain inks, inverted first.
enum JPEGCMYK {
    /// Converts `pixels` (C, M, Y, K per pixel; Adobe-inverted when `inverted`) to opaque RGBA in
    /// place.
    static func convertToRGBA(_ pixels: UnsafeMutableBufferPointer<UInt8>, inverted: Bool = true) {
        var i = 0
        let count = pixels.count & ~3
        let flip: UInt32 = inverted ? 0 : 255
        while i < count {
            let k = UInt32(pixels[i + 3]) ^ flip
            pixels[i] = multiply(UInt32(pixels[i]) ^ flip, k)
            pixels[i + 1] = multiply(UInt32(pixels[i + 1]) ^ flip, k)
            pixels[i + 2] = multiply(UInt32(pixels[i + 2]) ^ flip, k)
            pixels[i + 3] = 255
            i &+= 4
        }
    }

    /// `a × b / 255`, rounded, for bytes.
    @inline(__always)
    private static func multiply(_ a: UInt32, _ b: UInt32) -> UInt8 {
        let t = a &* b &+ 128
        return UInt8(truncatingIfNeeded: (t &+ (t >> 8)) >> 8)
    }
}
