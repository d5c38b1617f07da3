import Testing
@testable import WebImage
@testable import WebImageServer

/// `watermark` / `wm` and `raw`: imgproxy's grammar, defaults, refusals and canonical keys.
@Suite("Image URL options: watermark, raw")
struct ImageURLWatermarkOptionTests {
    private typealias Watermark = ProcessingOptions.Watermark

    private func expectRefused(_ options: String, naming option: String, sourceLocation: SourceLocation = #_sourceLocation) throws {
        let error = try #require(try optionFailure(options), "\(options) parsed", sourceLocation: sourceLocation)
        #expect(error.status == 400, "\(options): \(error)", sourceLocation: sourceLocation)
        #expect(error.name == "invalid_argument", "\(options): \(error)", sourceLocation: sourceLocation)
        #expect(error.message.contains("\"\(option)\""), "\(options): \(error.message)", sourceLocation: sourceLocation)
    }

    private func key(_ options: String) throws -> String {
        try makeURLParser().parse("/insecure/\(options)/plain/http://example.com/a.jpg").canonicalKey
    }

    /// The forms of imgproxy's docs and its own parser test: full and short names, every argument.
    @Test func theDocumentedFormsParse() throws {
        #expect(try urlOptions("watermark:0.5:soea:10:20:0.6").watermark
            == Watermark(opacity: 0.5, position: .southEast, x: 10, y: 20, scale: 0.6))
        #expect(try urlOptions("wm:0.5:soea:10:20:0.6") == urlOptions("watermark:0.5:soea:10:20:0.6"))
        #expect(try urlOptions("wm:1").watermark == Watermark(opacity: 1))
        #expect(try urlOptions("wm:1:re").watermark.position == .replicate)
        for position in ProcessingOptions.WatermarkPosition.allCases {
            #expect(try urlOptions("wm:1:\(position.rawValue)").watermark.position == position)
        }
        // Fractions of the result's side, negative offsets, and imgproxy's two further arguments.
        #expect(try urlOptions("wm:0.3:no:0.25:-4").watermark == Watermark(opacity: 0.3, position: .north, x: 0.25, y: -4))
        #expect(try urlOptions("wm:1:ce:0:0:0:x:y").watermark == Watermark(opacity: 1))
    }

    /// Off by default and with opacity 0; empty arguments keep what an earlier `wm` set.
    @Test func defaultsAndLaterOptions() throws {
        #expect(ProcessingOptions().watermark == Watermark())
        #expect(ProcessingOptions().watermark.isEnabled == false)
        #expect(try urlOptions("wm:0").watermark.isEnabled == false)
        #expect(try urlOptions("wm:1:so:5:6:0.5/wm:0.4").watermark
            == Watermark(opacity: 0.4, position: .south, x: 5, y: 6, scale: 0.5))
        #expect(try urlOptions("wm:1:so:5:6/wm:1::::0.2").watermark
            == Watermark(opacity: 1, position: .south, x: 5, y: 6, scale: 0.2))
    }

    /// Out-of-range and hostile values are a 400 naming the option; huge finite offsets parse
    /// (the geometry clamps them).
    @Test func badValuesAreRefused() throws {
        for bad in ["wm:1.5", "wm:-0.1", "wm:1e308", "wm:nan", "wm:inf", "wm:x", "wm:", "wm:1:sm", "wm:1:fp",
                    "wm:1:ce:1e400", "wm:1:ce:0:nan", "wm:1:ce:0:0:-1", "wm:1:ce:0:0:inf", "wm:1:ce:0:0:0:0:0:0"] {
            try expectRefused(bad, naming: "wm")
        }
        try expectRefused("watermark:2", naming: "watermark")
        #expect(try urlOptions("wm:1:ce:-1e300:1e300:1e9").watermark == Watermark(opacity: 1, x: -1e300, y: 1e300, scale: 1e9))
    }

    /// Every watermark setting changes the result key; a watermark with opacity 0 is none.
    @Test func canonicalKeysTellWatermarksApart() throws {
        let keys = try ["w:10", "w:10/wm:1", "w:10/wm:0.5", "w:10/wm:1:so", "w:10/wm:1:ce:5", "w:10/wm:1:ce:0:5",
                        "w:10/wm:1:ce:0:0:0.5", "w:10/wm:1:re", "w:10/raw:1"].map(key)
        #expect(Set(keys).count == keys.count, "\(keys)")
        #expect(try key("w:10/wm:0:so") == key("w:10"))
        #expect(try key("watermark:0.5:soea:10:20:0.6") == key("wm:0.5:soea:10:20:0.6"))
        #expect(try key("wm:1:ce:0:0:0") == key("wm:1"))
        // The key reads back as the same options.
        let path = String(try key("wm:0.5:soea:10:20:0.6/raw:t").prefix { $0 != "|" })
        #expect(try urlOptions(path) == urlOptions("wm:0.5:soea:10:20:0.6/raw:1"))
    }

    /// `raw:1`, `raw:t`, `raw:true`; the extension names no format for a raw answer.
    @Test func rawParses() throws {
        for yes in ["raw:1", "raw:t", "raw:true"] {
            #expect(try urlOptions(yes).raw, "\(yes)")
        }
        #expect(try urlOptions("raw:0").raw == false)
        #expect(ProcessingOptions().raw == false)
        let parsed = try makeURLParser().parse("/insecure/raw:1/plain/http://example.com/a.jpg@png")
        #expect(parsed.options.raw && parsed.options.format == nil)
        #expect(try makeURLParser().parse("/insecure/plain/http://example.com/a.jpg@png").options.format == .png)
    }
}
