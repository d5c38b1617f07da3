import CLCMS2
import Foundation

/// The library's lcms2 context: its own, so that lcms2's error log (silenced here: a profile it
/// rejects is reported by a nil handle, never printed) and any plug-ins a host application
/// installs on the global context stay apart.
enum LittleCMS {
    /// The context handle, shared by every thread.
    // No lock: a context is only read after creation, which lcms2 allows from any thread.
    private struct Context: @unchecked Sendable { let raw: cmsContext? }

    private static let shared: Context = {
        let context = cmsCreateContext(nil, nil)
        cmsSetLogErrorHandlerTHR(context) { _, _, _ in }
        return Context(raw: context)
    }()

    static var context: cmsContext? { shared.raw }
}

/// One open lcms2 profile, closed with this object. Used while a conversion is built, never
/// shared between threads.
final class LCMSProfile {
    let handle: cmsHPROFILE

    init(handle: cmsHPROFILE) { self.handle = handle }

    /// Opens ICC bytes; nil when lcms2 rejects them.
    convenience init?(icc: UnsafeRawBufferPointer) {
        guard let base = icc.baseAddress, icc.count >= 132, icc.count <= Int(UInt32.max),
              let handle = cmsOpenProfileFromMemTHR(LittleCMS.context, base, UInt32(icc.count)) else { return nil }
        self.init(handle: handle)
    }

    deinit { cmsCloseProfile(handle) }

    /// The colour space of the profile's device side.
    var colorSpace: ColorProfile.ColorSpace {
        switch cmsGetColorSpace(handle) {
        case cmsSigRgbData: .rgb
        case cmsSigGrayData: .gray
        case cmsSigCmykData: .cmyk
        default: .other
        }
    }

    /// The profile's description tag (`desc`), trimmed; nil when it has none.
    var profileDescription: String? {
        let needed = cmsGetProfileInfoASCII(handle, cmsInfoDescription, "en", "US", nil, 0)
        guard needed > 1, needed < 4096 else { return nil }
        var buffer = [CChar](repeating: 0, count: Int(needed))
        cmsGetProfileInfoASCII(handle, cmsInfoDescription, "en", "US", &buffer, needed)
        let text = String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
            .trimmingCharacters(in: .whitespacesAndNewlines)
        return text.isEmpty ? nil : text
    }

    /// Sets the description tag (for profiles the library builds).
    func setDescription(_ text: String) {
        guard let mlu = cmsMLUalloc(LittleCMS.context, 1) else { return }
        defer { cmsMLUfree(mlu) }
        cmsMLUsetASCII(mlu, "en", "US", text)
        cmsWriteTag(handle, cmsSigProfileDescriptionTag, UnsafeRawPointer(mlu))
    }

    /// The profile serialised as ICC bytes, with the creation date zeroed so that the same
    /// profile always gives the same bytes (and so the same conversion cache entry).
    func iccData() -> Data? {
        var size: cmsUInt32Number = 0
        guard cmsSaveProfileToMem(handle, nil, &size) != 0, size >= 128 else { return nil }
        var bytes = [UInt8](repeating: 0, count: Int(size))
        guard cmsSaveProfileToMem(handle, &bytes, &size) != 0 else { return nil }
        for i in 24..<36 { bytes[i] = 0 } // dateTimeNumber in the header
        return Data(bytes)
    }

    /// The built-in sRGB profile (IEC 61966-2.1).
    static func sRGB() -> LCMSProfile? {
        cmsCreate_sRGBProfileTHR(LittleCMS.context).map(LCMSProfile.init(handle:))
    }

    /// An RGB matrix/TRC profile from a white point, primaries (CIE xy) and one transfer curve
    /// for the three channels.
    static func rgb(white: (x: Double, y: Double), red: (x: Double, y: Double), green: (x: Double, y: Double),
                    blue: (x: Double, y: Double), curve: OpaquePointer) -> LCMSProfile? {
        var whitePoint = cmsCIExyY(x: white.x, y: white.y, Y: 1)
        var primaries = cmsCIExyYTRIPLE(Red: cmsCIExyY(x: red.x, y: red.y, Y: 1),
                                        Green: cmsCIExyY(x: green.x, y: green.y, Y: 1),
                                        Blue: cmsCIExyY(x: blue.x, y: blue.y, Y: 1))
        var curves: [OpaquePointer?] = [curve, curve, curve]
        return cmsCreateRGBProfileTHR(LittleCMS.context, &whitePoint, &primaries, &curves)
            .map(LCMSProfile.init(handle:))
    }
}

/// Transfer curves the library's built profiles use.
enum LCMSCurve {
    /// The sRGB curve (IEC 61966-2.1) as an ICC parametric curve of type 4; free with
    /// `cmsFreeToneCurve`.
    static func sRGB() -> OpaquePointer? {
        let parameters: [Double] = [2.4, 1 / 1.055, 0.055 / 1.055, 1 / 12.92, 0.04045]
        return cmsBuildParametricToneCurve(LittleCMS.context, 4, parameters)
    }

    /// An ICC parametric curve of type 4 (Y = (aX + b)^g for X ≥ d, else cX) from its five
    /// parameters [g, a, b, c, d]; free with `cmsFreeToneCurve`.
    static func parametric(_ parameters: [Double]) -> OpaquePointer? {
        guard parameters.count == 5 else { return nil }
        return cmsBuildParametricToneCurve(LittleCMS.context, 4, parameters)
    }

    /// A pure power curve; free with `cmsFreeToneCurve`.
    static func gamma(_ gamma: Double) -> OpaquePointer? {
        cmsBuildGamma(LittleCMS.context, gamma)
    }
}
