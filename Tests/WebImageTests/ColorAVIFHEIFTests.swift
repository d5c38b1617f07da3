import CLCMS2
import Foundation
import Testing
@testable import WebImageCodecs

/// AVIF and HEIF colour: an ICC profile or an `nclx` box saying Display P3 (or BT.2020) converts
/// the patch to the sRGB values lcms2 gives; sRGB `nclx` is left alone, as are HDR curves.
///
/// Fixtures (Tests/Fixtures/make-fixtures.sh): a 16×16 patch of ColorFixtures.patch
/// (230, 60, 40), from tools/mkpatch.py, tagged
/// - AVIF by `avifenc -s 8 --min 2 --max 2 -y 444 --cicp P/T/6 patch.png` (`p3-nclx`: 12/13,
///   `srgb-nclx`: 1/13, `bt2020-nclx`: 9/1, `pq-nclx`: 9/16; `p3-nclx-sequence`: 12/13 with
///   `--timescale 10 patch.png patch.png patch.png`, three frames) and `--icc test-display-p3.icc`
///   (`p3-icc`; tools/p3icc.c writes the profile, made as ColorFixtures.displayP3 is);
/// - HEIF by tools/heifgen.c (libheif's encoder with an nclx profile and libheif's macOS
///   workaround off: `p3-nclx`, `srgb-nclx`) and `heif-enc -q 90 -p chroma=444` from a PNG
///   carrying the P3 profile in `iCCP` (`p3-icc`).
///
/// The codecs are lossy, so each test first decodes with conversion off: those are the values
/// in the file's space, which lcms2 then converts for the expected result.
@Suite("Colour: AVIF and HEIF")
struct ColorAVIFHEIFTests {
    static let off = DecodeOptions(convertsToSRGB: false)

    func decode(_ path: String, _ options: DecodeOptions = .default) throws -> Image {
        let data = try CodecFixtures.data(path)
        return path.hasSuffix(".avif") ? try AVIFCoder().decode(data, options: options)
            : try HEIFCoder().decode(data, options: options)
    }

    /// Decodes `path` both ways and checks the converted pixel against lcms2 from `icc`.
    func expectConverted(_ path: String, icc: Data, description: String) throws {
        let raw = try decode(path, Self.off)
        let converted = try decode(path)
        let stored = raw.bitmap.pixel(x: 8, y: 8)
        #expect(ColorFixtures.near(stored, [230, 60, 40], tolerance: 4), "\(path) stored \(stored)")
        let want = try ColorFixtures.reference([stored.r, stored.g, stored.b], icc: icc)
        let got = converted.bitmap.pixel(x: 8, y: 8)
        #expect(ColorFixtures.near(got, want), "\(path): decoded \(got), lcms2 gives \(want)")
        #expect(!ColorFixtures.near(got, [stored.r, stored.g, stored.b]), "\(path) was not converted")
        #expect(got.a == 255)
        // Converted or not, the image names the profile its source declared.
        for image in [raw, converted] {
            #expect(image.colorProfile?.description == description, "\(path)")
            #expect(image.colorProfile?.colorSpace == .rgb)
        }
    }

    @Test(arguments: ["avif/p3-nclx.avif", "heif/p3-nclx.heic"])
    func displayP3ByNCLX(_ path: String) throws {
        try expectConverted(path, icc: ColorFixtures.displayP3, description: "Display P3 (nclx)")
        // The built-in Display P3 profile's bytes, so the conversion is the ICC one.
        #expect(try decode(path).colorProfile?.iccData == ColorProfile.displayP3.iccData)
    }

    /// libheif refuses an nclx box naming primaries it does not know, after allocating the
    /// profile it hands out (freed all the same: `make asan` and the `heif` fuzz target would
    /// report the 52 bytes); the image decodes untagged.
    @Test func aHEIFWhoseNCLXNamesUnknownPrimariesDecodesUntagged() throws {
        var data = try CodecFixtures.data("heif/p3-nclx.heic")
        let box = try #require(data.range(of: Data("colrnclx".utf8)))
        data[box.upperBound] = 0
        data[box.upperBound + 1] = 0xFF
        let image = try HEIFCoder().decode(data, options: .default)
        #expect(image.pixelSize.width > 0)
        #expect(image.colorProfile == nil)
    }

    @Test(arguments: ["avif/p3-icc.avif", "heif/p3-icc.heic"])
    func displayP3ByICC(_ path: String) throws {
        try expectConverted(path, icc: ColorFixtures.displayP3, description: "Test Display P3")
    }

    @Test(arguments: ["avif/p3-icc.avif", "heif/p3-icc.heic"])
    func aProfileLcms2RejectsIsKeptButNotApplied(_ path: String) throws {
        // The embedded profile's 'acsp' signature spoilt (same length, so no offsets move).
        var data = try CodecFixtures.data(path)
        let signature = try #require(data.firstRange(of: Data("acsp".utf8)))
        data.replaceSubrange(signature, with: Data("xxxx".utf8))
        let decode: (DecodeOptions) throws -> Image = { options in
            path.hasSuffix(".avif") ? try AVIFCoder().decode(data, options: options)
                : try HEIFCoder().decode(data, options: options)
        }
        let image = try decode(.default)
        let profile = try #require(image.colorProfile)
        #expect(!profile.isReadable && profile.description == nil)
        #expect(image.bitmap == (try decode(Self.off)).bitmap)
    }

    @Test(arguments: [false, true])
    func everyFrameOfASequenceIsConverted(_ preload: Bool) throws {
        let still = try decode("avif/p3-nclx.avif").bitmap.pixel(x: 8, y: 8)
        let raw = try decode("avif/p3-nclx-sequence.avif", DecodeOptions(convertsToSRGB: false, preloadsAllFrames: preload))
        let image = try decode("avif/p3-nclx-sequence.avif", DecodeOptions(preloadsAllFrames: preload))
        #expect(image.frameCount == 3 && image.colorProfile?.description == "Display P3 (nclx)")
        #expect(raw.colorProfile?.description == "Display P3 (nclx)")
        for index in [2, 1, 0] {
            let got = try image.frame(at: index).bitmap.pixel(x: 8, y: 8)
            let stored = try raw.frame(at: index).bitmap.pixel(x: 8, y: 8)
            #expect(ColorFixtures.near(got, [still.r, still.g, still.b]), "frame \(index): \(got), the still gives \(still)")
            #expect(ColorFixtures.near(stored, [230, 60, 40], tolerance: 4), "frame \(index) stored \(stored)")
        }
    }

    @Test func bt2020ByNCLX() throws {
        try expectConverted("avif/bt2020-nclx.avif", icc: Self.bt2020, description: "BT.2020 (nclx)")
    }

    @Test(arguments: ["avif/srgb-nclx.avif", "heif/srgb-nclx.heic", "avif/pq-nclx.avif"])
    func srgbAndHDRAreLeftAlone(_ path: String) throws {
        let image = try decode(path)
        #expect(image.colorProfile == nil, "\(path)")
        #expect(image.bitmap == (try decode(path, Self.off)).bitmap, "\(path)")
        #expect(ColorFixtures.near(image.bitmap.pixel(x: 8, y: 8), [230, 60, 40], tolerance: 4), "\(path)")
    }

    @Test func thumbnailsAreConvertedToo() throws {
        let full = try decode("avif/p3-nclx.avif")
        let small = try decode("avif/p3-nclx.avif", DecodeOptions(thumbnailPixelSize: PixelSize(width: 4, height: 4)))
        #expect(ColorFixtures.near(small.bitmap.pixel(x: 1, y: 1), [full.bitmap.pixel(x: 8, y: 8).r,
                                                                    full.bitmap.pixel(x: 8, y: 8).g,
                                                                    full.bitmap.pixel(x: 8, y: 8).b]))
        #expect(small.colorProfile?.description == "Display P3 (nclx)")
    }

    @Test func nclxCodePointsMapToProfiles() {
        func name(_ primaries: UInt16, _ transfer: UInt16) -> String? {
            NCLXColor(primaries: primaries, transfer: transfer).profile?.description
        }
        // sRGB, BT.709 and unspecified: the fast path.
        for (p, t) in [(1, 13), (1, 1), (1, 6), (2, 2), (2, 13), (1, 14), (1, 15)] as [(UInt16, UInt16)] {
            #expect(name(p, t) == nil, "\(p)/\(t)")
        }
        #expect(name(12, 13) == "Display P3 (nclx)")
        #expect(name(12, 2) == "Display P3 (nclx)")
        #expect(name(12, 1) == "Display P3, BT.709 curve (nclx)")
        for t in [1, 6, 14, 15] as [UInt16] { #expect(name(9, t) == "BT.2020 (nclx)") }
        #expect(name(9, 13) == "BT.2020, sRGB curve (nclx)")
        #expect(name(1, 4) == "BT.709, gamma 2.2 curve (nclx)")
        // HDR curves and unknown code points: no profile, pixels as decoded.
        for (p, t) in [(9, 16), (9, 18), (12, 16), (99, 13), (1, 99)] as [(UInt16, UInt16)] {
            #expect(name(p, t) == nil, "\(p)/\(t)")
        }
        #expect(NCLXColor(primaries: 9, transfer: 1).profile?.isReadable == true)
    }

    @Test func cliNamesTheNCLXProfile() async throws {
        let files = ["avif/p3-nclx.avif", "heif/p3-nclx.heic", "avif/p3-icc.avif", "avif/srgb-nclx.avif"]
        let run = try await CLIProcess.run(["decode", "--json"] + files.map { CodecFixtures.root.appendingPathComponent($0).path })
        #expect(run.status == 0, "\(run.stderr)")
        #expect(try run.object(0)["colorProfile"] as? String == "Display P3 (nclx)")
        #expect(try run.object(1)["colorProfile"] as? String == "Display P3 (nclx)")
        #expect(try run.object(2)["colorProfile"] as? String == "Test Display P3")
        #expect(try run.object(3)["colorProfile"] is NSNull)
    }

    /// BT.2020 primaries, D65, the BT.709 decoding curve, made directly with lcms2 (independent
    /// of the library's builder).
    static let bt2020: Data = {
        var white = cmsCIExyY(x: 0.3127, y: 0.3290, Y: 1)
        var primaries = cmsCIExyYTRIPLE(Red: cmsCIExyY(x: 0.708, y: 0.292, Y: 1),
                                        Green: cmsCIExyY(x: 0.170, y: 0.797, Y: 1),
                                        Blue: cmsCIExyY(x: 0.131, y: 0.046, Y: 1))
        let parameters: [Double] = [1 / 0.45, 1 / 1.099, 0.099 / 1.099, 1 / 4.5, 0.081]
        let curve = cmsBuildParametricToneCurve(nil, 4, parameters)
        defer { cmsFreeToneCurve(curve) }
        var curves: [OpaquePointer?] = [curve, curve, curve]
        let profile = cmsCreateRGBProfile(&white, &primaries, &curves)!
        defer { cmsCloseProfile(profile) }
        var size: cmsUInt32Number = 0
        cmsSaveProfileToMem(profile, nil, &size)
        var bytes = [UInt8](repeating: 0, count: Int(size))
        cmsSaveProfileToMem(profile, &bytes, &size)
        return Data(bytes)
    }()
}
