import Foundation

/// Decodes the current directory of a TIFF into straight RGBA in the sRGB space (unless colour
/// conversion is off): the coder's own sample conversion where it knows the layout, libtiff's
/// RGBA interface otherwise, then the embedded profile or the naive CMYK formula.
enum TIFFPixels {
    /// `directory` (current in `file`) as a bitmap in its stored orientation, and the colour plan
    /// that was applied (its profile is the one to keep on the image).
    static func decode(_ file: TIFFFile, _ directory: TIFFDirectory, icc: Data?,
                       options: DecodeOptions) throws -> (Bitmap, ColorManagement.Plan) {
        let size = directory.size
        guard let format = TIFFPixelFormat(directory, in: file) else {
            let plan = ColorManagement.plan(icc: icc, source: .rgb, options: options)
            return (try TIFFRGBAFallback.bitmap(file, size: size, color: plan), plan)
        }
        var colorOptions = options
        if case .cmyk = format.color { colorOptions.convertsToSRGB = true } // RGBA cannot hold CMYK
        let plan = ColorManagement.plan(icc: icc, source: format.colorSource, options: colorOptions)
        let isCMYK: Bool
        if case .cmyk = format.color { isCMYK = true } else { isCMYK = false }
        var sideAlpha = isCMYK && format.alpha != .none ? [UInt8](repeating: 255, count: size.area) : nil
        let bands = TIFFBands(file: file, directory: directory, format: format)
        let bitmap = try Bitmap(width: size.width, height: size.height) { buffer in
            let out = buffer.baseAddress!
            try withSideAlpha(&sideAlpha) { side in
                try bands.forEach { y, rows, samples, stride in
                    TIFFSamples.convert(format, source: samples, stride: stride, rows: rows, width: size.width,
                                        into: out + y * size.width * 4, sideAlpha: side.map { $0 + y * size.width })
                }
            }
            if isCMYK {
                if plan.conversion != nil { plan.apply(buffer) } else { JPEGCMYK.convertToRGBA(buffer, inverted: false) }
                if let sideAlpha {
                    for i in 0..<size.area { buffer[i * 4 + 3] = sideAlpha[i] }
                }
            } else {
                plan.apply(buffer)
            }
        }
        return (bitmap, plan)
    }

    private static func withSideAlpha(_ alpha: inout [UInt8]?,
                                      _ body: (UnsafeMutablePointer<UInt8>?) throws -> Void) throws {
        if alpha != nil {
            try alpha!.withUnsafeMutableBufferPointer { try body($0.baseAddress) }
        } else {
            try body(nil)
        }
    }
}
