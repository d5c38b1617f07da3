import CLCMS2

/// What a decoder's pixels hold before conversion; a profile converts only pixels of its own
/// kind.
enum ColorSource: Hashable, Sendable {
    /// RGBA pixels decoded from RGB data.
    case rgb
    /// RGBA pixels decoded from gray data (R = G = B).
    case gray
    /// C, M, Y, K per pixel; `inverted` for Adobe's files, which store 255 for no ink.
    case cmyk(inverted: Bool)
}

/// One profile's conversion to sRGB, built once and shared by every decode of images tagged
/// with that profile.
///
/// Rendering intent: perceptual. For the matrix/TRC profiles of nearly all RGB images it gives
/// exactly what relative colourimetric gives (lcms2 has no perceptual tables to use there);
/// for table-based profiles (CMYK print profiles, some RGB ones) it uses the profile maker's
/// tables for showing the image on a display, which is what browsers do, where relative
/// colourimetric would clip out-of-gamut colours flat.
// Immutable after creation, and lcms2 allows `cmsDoTransform` on one transform from several
// threads at once (each call works on its own copy of the transform's one-pixel cache). No lock.
final class ColorConversion: @unchecked Sendable {
    static let intent = UInt32(INTENT_PERCEPTUAL)

    private enum Method {
        /// RGB matrix/TRC profiles: lcms2's transform sampled into tables.
        case matrixShaper(MatrixShaperTables)
        /// Gray profiles: the sRGB colour of each of the 256 gray values (R, G, B).
        case grayTable([UInt8])
        /// Everything else: lcms2 itself, 4 bytes in and out per pixel; `opaque` sets alpha to 255
        /// afterwards (CMYK input has no alpha, and its K byte sits where alpha goes).
        case transform(cmsHTRANSFORM, opaque: Bool)
    }

    private let method: Method

    private init(_ method: Method) { self.method = method }

    deinit {
        if case .transform(let transform, _) = method { cmsDeleteTransform(transform) }
    }

    /// The conversion of `source` pixels tagged with `profile` to sRGB; nil when there is
    /// nothing to do (the profile is sRGB, or it does not describe pixels of that kind) or when
    /// lcms2 cannot make the transform.
    static func make(profile: LCMSProfile, source: ColorSource) -> ColorConversion? {
        switch (source, profile.colorSpace) {
        case (.rgb, .rgb), (.gray, .rgb):
            guard let conversion = rgb(profile), !conversion.isIdentity else { return nil }
            return conversion
        case (.gray, .gray):
            return gray(profile)
        case (.cmyk(let inverted), .cmyk):
            return cmyk(profile, inverted: inverted)
        default:
            return nil
        }
    }

    /// Converts 4-byte pixels in place: RGBA stays RGBA (alpha kept), CMYK becomes opaque RGBA.
    func apply(_ pixels: UnsafeMutableBufferPointer<UInt8>) {
        guard let base = pixels.baseAddress else { return }
        let count = pixels.count / 4
        switch method {
        case .matrixShaper(let tables):
            tables.apply(pixels)
        case .grayTable(let table):
            table.withUnsafeBufferPointer { t in
                var i = 0
                while i < count &* 4 {
                    let v = Int(base[i]) &* 3
                    base[i] = t[v]; base[i &+ 1] = t[v &+ 1]; base[i &+ 2] = t[v &+ 2]
                    i &+= 4
                }
            }
        case .transform(let transform, let opaque):
            // lcms2 reads each pixel whole before writing it, so converting in place is safe.
            cmsDoTransform(transform, base, base, UInt32(count))
            if opaque {
                var i = 3
                while i < count &* 4 { base[i] = 255; i &+= 4 }
            }
        }
    }

    private static func rgb(_ profile: LCMSProfile) -> ColorConversion? {
        if cmsIsMatrixShaper(profile.handle) != 0, let tables = MatrixShaperTables(profile: profile) {
            return ColorConversion(.matrixShaper(tables))
        }
        return transform(from: profile, format: CLCMS2_TYPE_RGBA_8, flags: UInt32(cmsFLAGS_COPY_ALPHA),
                         opaque: false)
    }

    private static func cmyk(_ profile: LCMSProfile, inverted: Bool) -> ColorConversion? {
        transform(from: profile, format: inverted ? CLCMS2_TYPE_CMYK_8_REV : CLCMS2_TYPE_CMYK_8, flags: 0,
                  opaque: true)
    }

    private static func transform(from profile: LCMSProfile, format: UInt32, flags: UInt32,
                                  opaque: Bool) -> ColorConversion? {
        guard let srgb = LCMSProfile.sRGB(),
              let transform = cmsCreateTransformTHR(LittleCMS.context, profile.handle, format, srgb.handle,
                                                    CLCMS2_TYPE_RGBA_8, intent, flags) else { return nil }
        return ColorConversion(.transform(transform, opaque: opaque))
    }

    /// Gray profiles become a 256-entry table; nil when it maps every gray to itself (within 1).
    private static func gray(_ profile: LCMSProfile) -> ColorConversion? {
        guard let srgb = LCMSProfile.sRGB(),
              let transform = cmsCreateTransformTHR(LittleCMS.context, profile.handle, CLCMS2_TYPE_GRAY_8,
                                                    srgb.handle, CLCMS2_TYPE_RGB_8, intent,
                                                    UInt32(cmsFLAGS_NOCACHE)) else { return nil }
        defer { cmsDeleteTransform(transform) }
        let input = (0..<256).map { UInt8($0) }
        var table = [UInt8](repeating: 0, count: 256 * 3)
        cmsDoTransform(transform, input, &table, 256)
        let identity = (0..<256 * 3).allSatisfy { abs(Int(table[$0]) - $0 / 3) <= 1 }
        return identity ? nil : ColorConversion(.grayTable(table))
    }

    /// True when the conversion changes no RGB value by more than 1 (an sRGB profile, perhaps
    /// with slightly different tables): checked on a 17-step cube and every single-channel ramp.
    private var isIdentity: Bool {
        var probe = Self.probe
        probe.withUnsafeMutableBufferPointer { apply($0) }
        for i in 0..<probe.count where abs(Int(probe[i]) - Int(Self.probe[i])) > 1 { return false }
        return true
    }

    /// The identity check's pixels (RGBA, opaque).
    private static let probe: [UInt8] = {
        var pixels: [UInt8] = []
        let steps = (0...16).map { min(255, $0 * 16) }
        for r in steps { for g in steps { for b in steps { pixels += [UInt8(r), UInt8(g), UInt8(b), 255] } } }
        for v in 0..<256 {
            let x = UInt8(v)
            pixels += [x, 0, 0, 255, 0, x, 0, 255, 0, 0, x, 255, x, x, x, 255]
        }
        return pixels
    }()
}
