import Testing
@testable import WebImage
@testable import WebImageServer

/// `trim`, `max_bytes`, `keep_copyright` and `strip_color_profile`: imgproxy's grammar, defaults,
/// refusals and canonical forms.
@Suite("Image URL options: trim, max_bytes, keep_copyright, strip_color_profile")
struct ImageURLOutputOptionTests {
    private func expectRefused(_ options: String, sourceLocation: SourceLocation = #_sourceLocation) throws {
        let error = try #require(try optionFailure(options), "\(options) parsed", sourceLocation: sourceLocation)
        #expect(error.status == 400, "\(options): \(error)", sourceLocation: sourceLocation)
        #expect(error.name == "invalid_argument", "\(options): \(error)", sourceLocation: sourceLocation)
    }

    /// The docs' forms: `trim:%threshold:%color:%equal_hor:%equal_ver` and `t:…`; no colour is
    /// the top-left pixel's; an empty threshold turns trimming off.
    @Test func trimTakesThresholdColourAndEqualFlags() throws {
        #expect(ProcessingOptions().trim == nil)
        #expect(try urlOptions("trim:10") == urlOptions("t:10"))
        #expect(try urlOptions("t:10").trim == ProcessingOptions.Trim(threshold: 10))
        #expect(try urlOptions("t:2.5:ff0000").trim == ProcessingOptions.Trim(threshold: 2.5, color: RGBA(r: 255, g: 0, b: 0)))
        #expect(try urlOptions("t:0:f00:1:true").trim
            == ProcessingOptions.Trim(threshold: 0, color: RGBA(r: 255, g: 0, b: 0), equalHorizontal: true, equalVertical: true))
        #expect(try urlOptions("t:5::1").trim == ProcessingOptions.Trim(threshold: 5, equalHorizontal: true))
        // A later trim keeps the equal flags it leaves empty, and sets the colour it leaves out to
        // the top-left pixel.
        #expect(try urlOptions("t:5:fff:1:1/t:7").trim
            == ProcessingOptions.Trim(threshold: 7, equalHorizontal: true, equalVertical: true))
        #expect(try urlOptions("t:5/t:").trim == nil)
        #expect(try urlOptions("t::ff0000").trim == nil)
    }

    @Test func maxBytesKeepCopyrightAndStripColorProfile() throws {
        #expect(ProcessingOptions().maxBytes == 0)
        #expect(try urlOptions("max_bytes:10240").maxBytes == 10240)
        #expect(try urlOptions("mb:0").maxBytes == 0)
        #expect(ProcessingOptions().keepCopyright == nil)
        #expect(try urlOptions("keep_copyright:0").keepCopyright == false)
        #expect(try urlOptions("kcr:1").keepCopyright == true)
        #expect(ProcessingOptions().stripColorProfile == nil)
        #expect(try urlOptions("strip_color_profile:0").stripColorProfile == false)
        #expect(try urlOptions("scp:t").stripColorProfile == true)
    }

    /// Hostile values are refused with a 400 naming the option, never trapped on.
    @Test func badValuesAreA400() throws {
        for bad in ["t:-1", "t:NaN", "t:inf", "t:1e400", "t:x", "t:10:red", "t:10:ff00ff00", "t:1:f00:1:1:1",
                    "mb:-1", "mb:1.5", "mb:99999999999999999999", "mb:1:2", "kcr:1:1", "scp:0:0"] {
            try expectRefused(bad)
        }
    }

    /// Each option is in the canonical key, so results that differ never share a cache entry.
    @Test func theOptionsAreInTheCanonicalKey() throws {
        #expect(try urlOptions("trim:10").canonicalPath == "t:10::0:0")
        #expect(try urlOptions("t:2.5:f00:1").canonicalPath == "t:2.5:ff0000:1:0")
        #expect(try urlOptions("mb:100").canonicalPath == "mb:100")
        #expect(try urlOptions("mb:0").canonicalPath == "")
        #expect(try urlOptions("kcr:0/scp:0").canonicalPath == "kcr:0/scp:0")
        #expect(try urlOptions("kcr:1").canonicalPath == "kcr:1")
        #expect(try urlOptions("t:10").canonicalPath != urlOptions("t:10:000000").canonicalPath)
    }
}
