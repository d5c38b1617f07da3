import CTIFF
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
        try checkSupported(directory)
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
            if format.isPacked {
                try TIFFPackedRows(file: file, directory: directory, format: format).decode(into: out)
            } else {
                try withSideAlpha(&sideAlpha) { side in
                    try bands.forEach { y, rows, samples, stride in
                        TIFFSamples.convert(format, source: samples, stride: stride, rows: rows, width: size.width,
                                            into: out + y * size.width * 4, sideAlpha: side.map { $0 + y * size.width })
                    }
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

    /// Refuses, with an error that says so, sample formats outside what is supported: floating
    /// point, and integers over 16 bits. LogLuv files, which libtiff's RGBA interface renders
    /// itself, are left to it.
    static func checkSupported(_ directory: TIFFDirectory) throws {
        let bits = directory.bitsPerSample
        let photometric = Int32(directory.photometric)
        if photometric == PHOTOMETRIC_LOGLUV || photometric == PHOTOMETRIC_LOGL { return }
        if directory.sampleFormat == UInt16(SAMPLEFORMAT_IEEEFP) {
            throw WebImageError(.unsupportedFormat,
                "The TIFF has \(bits)-bit floating-point samples, which are not supported: TIFF decodes 1- to 16-bit integer samples.")
        }
        if bits > 16 {
            throw WebImageError(.unsupportedFormat,
                "The TIFF has \(bits)-bit samples, which are not supported: TIFF decodes 1- to 16-bit samples.")
        }
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
