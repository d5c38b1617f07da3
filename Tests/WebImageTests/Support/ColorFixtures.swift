import CLCMS2
import CTurboJPEG
import CWebP
import Foundation
@testable import WebImageCodecs

/// ICC profiles built with lcms2 at test time, images tagged with them, and lcms2's own
/// conversions as the reference the decoders must match.
enum ColorFixtures {
    struct Failed: Error {}

    /// The colour patch the tagged fixtures hold: a saturated orange-red, far enough out of sRGB
    /// in P3 that an unconverted decode is visibly different.
    static let patch = RGBA(r: 230, g: 60, b: 40, a: 255)

    /// Display P3 made directly with lcms2 (P3 primaries, D65, the sRGB curve), independent of
    /// the library's own ``ColorProfile/displayP3``.
    static let displayP3: Data = {
        var white = cmsCIExyY(x: 0.3127, y: 0.3290, Y: 1)
        var primaries = cmsCIExyYTRIPLE(Red: cmsCIExyY(x: 0.680, y: 0.320, Y: 1),
                                        Green: cmsCIExyY(x: 0.265, y: 0.690, Y: 1),
                                        Blue: cmsCIExyY(x: 0.150, y: 0.060, Y: 1))
        let parameters: [Double] = [2.4, 1 / 1.055, 0.055 / 1.055, 1 / 12.92, 0.04045]
        let curve = cmsBuildParametricToneCurve(nil, 4, parameters)
        defer { cmsFreeToneCurve(curve) }
        var curves: [OpaquePointer?] = [curve, curve, curve]
        let profile = cmsCreateRGBProfile(&white, &primaries, &curves)!
        defer { cmsCloseProfile(profile) }
        describe(profile, "Test Display P3")
        return save(profile)
    }()

    /// lcms2's built-in sRGB profile, serialised.
    static let sRGB: Data = {
        let profile = cmsCreate_sRGBProfile()!
        defer { cmsCloseProfile(profile) }
        return save(profile)
    }()

    /// A small CMYK profile (a 9-step CLUT from CMYK to Lab, sampled from the naive formula
    /// darkened by 10% so a profile-less decode differs); only A2B0, enough to convert from.
    static let cmyk: Data = {
        let profile = cmsCreateProfilePlaceholder(nil)!
        defer { cmsCloseProfile(profile) }
        cmsSetProfileVersion(profile, 2.1)
        cmsSetDeviceClass(profile, cmsSigInputClass)
        cmsSetColorSpace(profile, cmsSigCmykData)
        cmsSetPCS(profile, cmsSigLabData)
        let pipeline = cmsPipelineAlloc(nil, 4, 3)!
        defer { cmsPipelineFree(pipeline) }
        let clut = cmsStageAllocCLut16bit(nil, 9, 4, 3, nil)!
        cmsStageSampleCLut16bit(clut, { input, output, _ in
            guard let input, let output else { return 0 }
            let k = 1 - Double(input[3]) / 65535
            var rgb = (0..<3).map { 0.9 * (1 - Double(input[$0]) / 65535) * k }
            var lab = cmsCIELab()
            cmsDoTransform(ColorFixtures.sRGBToLab, &rgb, &lab, 1)
            cmsFloat2LabEncodedV2(output, &lab)
            return 1
        }, nil, 0)
        cmsPipelineInsertStage(pipeline, cmsAT_BEGIN, clut)
        cmsWriteTag(profile, cmsSigAToB0Tag, UnsafeRawPointer(pipeline))
        describe(profile, "Test CMYK")
        return save(profile)
    }()

    /// sRGB (doubles 0…1) to CIE Lab (D50), for sampling the CMYK profile.
    nonisolated(unsafe) static let sRGBToLab: cmsHTRANSFORM = {
        let srgb = cmsCreate_sRGBProfile(), lab = cmsCreateLab4Profile(nil)
        defer { cmsCloseProfile(srgb); cmsCloseProfile(lab) }
        return cmsCreateTransform(srgb, CLCMS2_TYPE_RGB_DBL, lab, CLCMS2_TYPE_Lab_DBL,
                                  UInt32(INTENT_RELATIVE_COLORIMETRIC), UInt32(cmsFLAGS_NOCACHE))!
    }()

    /// What lcms2 makes of 8-bit `pixel` (3 or 4 channels as the profile's space) tagged with
    /// `icc`, in sRGB: perceptual intent, as the decoders use.
    static func reference(_ pixel: [UInt8], icc: Data, format: UInt32 = CLCMS2_TYPE_RGB_8) throws -> [UInt8] {
        let source = icc.withUnsafeBytes { cmsOpenProfileFromMem($0.baseAddress, UInt32($0.count)) }
        guard let source, let srgb = cmsCreate_sRGBProfile() else { throw Failed() }
        defer { cmsCloseProfile(source); cmsCloseProfile(srgb) }
        guard let transform = cmsCreateTransform(source, format, srgb, CLCMS2_TYPE_RGB_8,
                                                 UInt32(INTENT_PERCEPTUAL), UInt32(cmsFLAGS_NOCACHE)) else {
            throw Failed()
        }
        defer { cmsDeleteTransform(transform) }
        var out = [UInt8](repeating: 0, count: 3)
        cmsDoTransform(transform, pixel, &out, 1)
        return out
    }

    /// True when `colour` is within `tolerance` of `expected` on R, G and B.
    static func near(_ colour: RGBA, _ expected: [UInt8], tolerance: Int = 2) -> Bool {
        abs(Int(colour.r) - Int(expected[0])) <= tolerance && abs(Int(colour.g) - Int(expected[1])) <= tolerance
            && abs(Int(colour.b) - Int(expected[2])) <= tolerance
    }

    // MARK: - Tagged files

    /// A solid 16×16 bitmap of `colour`.
    static func solid(_ colour: RGBA = patch) -> Bitmap { Bitmap(width: 16, height: 16, fill: colour) }

    /// `jpeg` with `icc` in APP2 `ICC_PROFILE` chunks of at most `chunkSize` bytes right after
    /// SOI; `sequence` reorders or drops chunks (1-based numbers, as written), `count` overrides
    /// the declared count.
    static func jpeg(_ jpeg: Data, icc: Data, chunkSize: Int = 65_519, sequence: [Int]? = nil,
                     count: Int? = nil) -> Data {
        let bytes = [UInt8](icc)
        let chunks = stride(from: 0, to: bytes.count, by: chunkSize).map { Array(bytes[$0..<min($0 + chunkSize, bytes.count)]) }
        var out = Data(jpeg.prefix(2))
        for number in sequence ?? Array(1...chunks.count) {
            let payload = Array("ICC_PROFILE\0".utf8) + [UInt8(number), UInt8(count ?? chunks.count)] + chunks[number - 1]
            let length = payload.count + 2
            out.append(contentsOf: [0xFF, 0xE2, UInt8(length >> 8), UInt8(length & 0xFF)] + payload)
        }
        out.append(jpeg.dropFirst(2))
        return out
    }

    /// A P3-tagged (or `icc`-tagged) JPEG of a solid patch: 4:4:4 at quality 100, so the decoded
    /// patch is the encoded colour within 1.
    static func taggedJPEG(_ colour: RGBA = patch, icc: Data? = displayP3) throws -> Data {
        let plain = try JPEGFixtures.compress(solid(colour).pixels, width: 16, height: 16,
                                              subsampling: TJSAMP_444, quality: 100)
        return icc.map { jpeg(plain, icc: $0) } ?? plain
    }

    /// An 8-bit RGBA PNG of a solid patch with `icc` in an `iCCP` chunk.
    static func taggedPNG(_ colour: RGBA = patch, icc: Data? = displayP3, extraChunks: [(UInt32, [UInt8])] = []) -> Data {
        let bitmap = solid(colour)
        var chunks = extraChunks
        if let icc {
            chunks.append((PNGChunks.fourCC("iCCP"), Array("icc\0".utf8) + [0] + PNGFixtures.zlibStored([UInt8](icc))))
        }
        return PNGFixtures.png(width: 16, height: 16, rows: PNGFixtures.rows(of: bitmap), extraChunks: chunks)
    }

    /// A lossless WebP of a solid patch with `icc` in an `ICCP` chunk (through libwebp's muxer).
    static func taggedWebP(_ colour: RGBA = patch, icc: Data = displayP3) throws -> Data {
        let plain = try WebPCoder().encode(Image(bitmap: solid(colour)), as: .webp, options: EncodeOptions(lossless: true))
        return try plain.withUnsafeBytes { image in
            try icc.withUnsafeBytes { profile in
                guard let mux = WebPMuxNew() else { throw Failed() }
                defer { WebPMuxDelete(mux) }
                var imageData = WebPData(bytes: image.baseAddress?.assumingMemoryBound(to: UInt8.self), size: image.count)
                var profileData = WebPData(bytes: profile.baseAddress?.assumingMemoryBound(to: UInt8.self), size: profile.count)
                guard WebPMuxSetImage(mux, &imageData, 1) == WEBP_MUX_OK,
                      WebPMuxSetChunk(mux, "ICCP", &profileData, 1) == WEBP_MUX_OK else { throw Failed() }
                var assembled = WebPData()
                guard WebPMuxAssemble(mux, &assembled) == WEBP_MUX_OK, let bytes = assembled.bytes else { throw Failed() }
                defer { WebPDataClear(&assembled) }
                return Data(bytes: bytes, count: assembled.size)
            }
        }
    }

    private static func describe(_ profile: cmsHPROFILE, _ text: String) {
        let mlu = cmsMLUalloc(nil, 1)
        defer { cmsMLUfree(mlu) }
        cmsMLUsetASCII(mlu, "en", "US", text)
        cmsWriteTag(profile, cmsSigProfileDescriptionTag, UnsafeRawPointer(mlu))
    }

    private static func save(_ profile: cmsHPROFILE) -> Data {
        var size: cmsUInt32Number = 0
        cmsSaveProfileToMem(profile, nil, &size)
        var bytes = [UInt8](repeating: 0, count: Int(size))
        cmsSaveProfileToMem(profile, &bytes, &size)
        return Data(bytes)
    }
}
