/// Converts rows of TIFF samples, as libtiff decodes them (native byte order), into RGBA8 rows.
///
/// 16-bit samples are rounded to 8 bits (v / 257, rounded), never truncated. Associated alpha
/// is divided out at the stored precision, so 16-bit premultiplied colour keeps its accuracy.
/// CMYK is written as C, M, Y, K (colour management or the naive formula turns it into RGB
/// afterwards) with its alpha, if any, into a side buffer.
enum TIFFSamples {
    /// One 16-bit value rounded to 8 bits.
    @inline(__always)
    static func round16(_ v: UInt16) -> UInt8 { UInt8(truncatingIfNeeded: (UInt32(v) &+ 128) / 257) }

    /// Converts `rows` rows of `width` pixels from `source` (`stride` bytes apart) into RGBA at
    /// `destination` (`width * 4` bytes a row); for CMYK with alpha, the alpha goes to `sideAlpha`
    /// (`width` bytes a row).
    static func convert(_ format: TIFFPixelFormat, source: UnsafeRawPointer, stride: Int, rows: Int, width: Int,
                        into destination: UnsafeMutablePointer<UInt8>, sideAlpha: UnsafeMutablePointer<UInt8>?) {
        if format.bits < 8 {
            for row in 0..<rows {
                unpack(format, source + row * stride, width: width, into: destination + row * width * 4)
            }
            return
        }
        if format.bits == 16 {
            convert(UInt16.self, format, source, stride, rows, width, destination, sideAlpha)
        } else {
            convert(UInt8.self, format, source, stride, rows, width, destination, sideAlpha)
        }
    }

    private static func convert<S: TIFFSample>(_: S.Type, _ format: TIFFPixelFormat, _ source: UnsafeRawPointer,
                                               _ stride: Int, _ rows: Int, _ width: Int,
                                               _ destination: UnsafeMutablePointer<UInt8>,
                                               _ sideAlpha: UnsafeMutablePointer<UInt8>?) {
        for row in 0..<rows {
            let src = (source + row * stride).assumingMemoryBound(to: S.self)
            let dst = destination + row * width * 4
            switch format.color {
            case .rgb:
                rgbRow(src, dst, width: width, spp: format.samplesPerPixel, alpha: format.alpha)
            case .cmyk:
                cmykRow(src, dst, side: sideAlpha.map { $0 + row * width }, width: width,
                        spp: format.samplesPerPixel, alpha: format.alpha)
            case .gray(let whiteIsZero):
                grayRow(src, dst, width: width, spp: format.samplesPerPixel, alpha: format.alpha, invert: whiteIsZero)
            case .palette(let table):
                // 8-bit indices (16-bit palettes are left to libtiff).
                paletteRow(UnsafeRawPointer(src).assumingMemoryBound(to: UInt8.self), dst, width: width,
                           spp: format.samplesPerPixel, table: table)
            }
        }
    }

    // One loop per layout, the alpha handling chosen outside the pixel loop.

    @inline(__always)
    private static func rgbRow<S: TIFFSample>(_ src: UnsafePointer<S>, _ dst: UnsafeMutablePointer<UInt8>,
                                              width: Int, spp: Int, alpha: TIFFPixelFormat.Alpha) {
        var s = 0, d = 0
        switch alpha {
        case .none:
            for _ in 0..<width {
                dst[d] = src[s].eight; dst[d &+ 1] = src[s &+ 1].eight; dst[d &+ 2] = src[s &+ 2].eight; dst[d &+ 3] = 255
                s &+= spp; d &+= 4
            }
        case .straight:
            if S.self == UInt8.self, spp == 4 {
                dst.update(from: UnsafeRawPointer(src).assumingMemoryBound(to: UInt8.self), count: width * 4)
                return
            }
            for _ in 0..<width {
                dst[d] = src[s].eight; dst[d &+ 1] = src[s &+ 1].eight; dst[d &+ 2] = src[s &+ 2].eight
                dst[d &+ 3] = src[s &+ 3].eight
                s &+= spp; d &+= 4
            }
        case .premultiplied:
            for _ in 0..<width {
                let a = src[s &+ 3]
                dst[d] = S.unpremultiply(src[s], a); dst[d &+ 1] = S.unpremultiply(src[s &+ 1], a)
                dst[d &+ 2] = S.unpremultiply(src[s &+ 2], a); dst[d &+ 3] = a.eight
                s &+= spp; d &+= 4
            }
        }
    }

    @inline(__always)
    private static func cmykRow<S: TIFFSample>(_ src: UnsafePointer<S>, _ dst: UnsafeMutablePointer<UInt8>,
                                               side: UnsafeMutablePointer<UInt8>?, width: Int, spp: Int,
                                               alpha: TIFFPixelFormat.Alpha) {
        var s = 0, d = 0
        for x in 0..<width {
            if alpha == .premultiplied {
                let a = src[s &+ 4]
                for c in 0..<4 { dst[d &+ c] = S.unpremultiply(src[s &+ c], a) }
            } else {
                for c in 0..<4 { dst[d &+ c] = src[s &+ c].eight }
            }
            if alpha != .none { side?[x] = src[s &+ 4].eight }
            s &+= spp; d &+= 4
        }
    }

    @inline(__always)
    private static func grayRow<S: TIFFSample>(_ src: UnsafePointer<S>, _ dst: UnsafeMutablePointer<UInt8>,
                                               width: Int, spp: Int, alpha: TIFFPixelFormat.Alpha, invert: Bool) {
        let flip: UInt8 = invert ? 255 : 0
        var s = 0, d = 0
        for _ in 0..<width {
            let v: UInt8, a: UInt8
            switch alpha {
            case .none: v = src[s].eight; a = 255
            case .straight: v = src[s].eight; a = src[s &+ 1].eight
            case .premultiplied: v = S.unpremultiply(src[s], src[s &+ 1]); a = src[s &+ 1].eight
            }
            let g = v ^ flip
            dst[d] = g; dst[d &+ 1] = g; dst[d &+ 2] = g; dst[d &+ 3] = a
            s &+= spp; d &+= 4
        }
    }

    @inline(__always)
    private static func paletteRow(_ src: UnsafePointer<UInt8>, _ dst: UnsafeMutablePointer<UInt8>, width: Int,
                                   spp: Int, table: [UInt8]) {
        table.withUnsafeBufferPointer { entries in
            var s = 0, d = 0
            for _ in 0..<width {
                let e = Int(src[s]) &* 4
                dst[d] = entries[e]; dst[d &+ 1] = entries[e &+ 1]; dst[d &+ 2] = entries[e &+ 2]; dst[d &+ 3] = 255
                s &+= spp; d &+= 4
            }
        }
    }

    /// One row of 1-, 2- or 4-bit gray or palette pixels (most significant bits first).
    private static func unpack(_ format: TIFFPixelFormat, _ source: UnsafeRawPointer, width: Int,
                               into dst: UnsafeMutablePointer<UInt8>) {
        let bits = format.bits
        let bytes = source.assumingMemoryBound(to: UInt8.self)
        let mask = (1 << bits) - 1
        for x in 0..<width {
            let bit = x * bits
            let index = Int(bytes[bit >> 3] >> (8 - bits - (bit & 7))) & mask
            let d = x * 4
            switch format.color {
            case .palette(let table):
                dst[d] = table[index * 4]; dst[d + 1] = table[index * 4 + 1]; dst[d + 2] = table[index * 4 + 2]
            case .gray(let whiteIsZero):
                var v = UInt8(index * 255 / mask)
                if whiteIsZero { v = 255 - v }
                dst[d] = v; dst[d + 1] = v; dst[d + 2] = v
            case .rgb, .cmyk:
                break // not produced below 8 bits (see TIFFPixelFormat)
            }
            dst[d + 3] = 255
        }
    }
}

/// An unsigned sample as libtiff hands it over: 8 or 16 bits.
protocol TIFFSample {
    /// The value at 8 bits (16-bit values rounded).
    var eight: UInt8 { get }
    /// `value` divided by associated alpha `alpha`, at 8 bits, rounded (0 where alpha is 0).
    static func unpremultiply(_ value: Self, _ alpha: Self) -> UInt8
}

extension UInt8: TIFFSample {
    @inline(__always) var eight: UInt8 { self }

    @inline(__always)
    static func unpremultiply(_ value: UInt8, _ alpha: UInt8) -> UInt8 {
        guard alpha != 0 else { return 0 }
        let v = UInt32(Swift.min(value, alpha)), a = UInt32(alpha)
        return UInt8(truncatingIfNeeded: (v &* 255 &+ a / 2) / a)
    }
}

extension UInt16: TIFFSample {
    @inline(__always) var eight: UInt8 { TIFFSamples.round16(self) }

    @inline(__always)
    static func unpremultiply(_ value: UInt16, _ alpha: UInt16) -> UInt8 {
        guard alpha != 0 else { return 0 }
        let v = UInt32(Swift.min(value, alpha)), a = UInt32(alpha)
        return UInt8(truncatingIfNeeded: (v &* 255 &+ a / 2) / a)
    }
}
