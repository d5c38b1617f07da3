/// A CMYK JPEG XL's black: libjxl 0.7 decodes the colour channels (C, M, Y, stored as in Adobe's
/// CMYK JPEGs: 0 is full ink) and hands the K extra channel over separately, leaving it to the
/// application. Here K joins C, M and Y and the four become RGB: through the file's CMYK
/// profile when lcms2 takes it, else by the naive formula (``JPEGCMYK``). Alpha is kept.
enum JXLBlack {
    /// Converts `pixels` (C, M, Y, alpha per pixel) with `black` (one K sample per pixel) to
    /// RGBA in place, by `color` (a CMYK conversion) or the naive formula.
    static func apply(_ black: UnsafeBufferPointer<UInt8>, to pixels: UnsafeMutableBufferPointer<UInt8>,
                      color: ColorManagement.Plan) {
        let count = min(black.count, pixels.count / 4)
        var alpha = [UInt8](repeating: 255, count: count)
        for i in 0..<count {
            alpha[i] = pixels[i &* 4 &+ 3]
            pixels[i &* 4 &+ 3] = black[i]
        }
        if color.conversion != nil {
            color.apply(pixels)
        } else {
            JPEGCMYK.convertToRGBA(pixels, inverted: true)
        }
        for i in 0..<count { pixels[i &* 4 &+ 3] = alpha[i] }
    }
}
