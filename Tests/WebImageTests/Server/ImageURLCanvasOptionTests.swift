import Testing
@testable import WebImage
@testable import WebImageServer

/// `padding`, `pixelate` and `extend_aspect_ratio`: imgproxy's grammar, defaults and refusals.
@Suite("Image URL options: padding, pixelate, extend_aspect_ratio")
struct ImageURLCanvasOptionTests {
    private func padding(_ options: String) throws -> [Int] {
        try urlOptions(options).padding.sides
    }

    private func expectRefused(_ options: String, naming option: String, sourceLocation: SourceLocation = #_sourceLocation) throws {
        let error = try #require(try optionFailure(options), "\(options) parsed", sourceLocation: sourceLocation)
        #expect(error.status == 400, "\(options): \(error)", sourceLocation: sourceLocation)
        #expect(error.name == "invalid_argument", "\(options): \(error)", sourceLocation: sourceLocation)
        #expect(error.message.contains("\"\(option)\""), "\(options): \(error.message)", sourceLocation: sourceLocation)
    }

    /// The forms imgproxy's docs give, with the names and the CSS shorthand.
    @Test func paddingFollowsTheCSSShorthand() throws {
        #expect(try padding("padding:10") == [10, 10, 10, 10])
        #expect(try padding("pd:10:20") == [10, 20, 10, 20])
        #expect(try padding("pd:10:20:30") == [10, 20, 30, 20])
        #expect(try padding("pd:10:20:30:40") == [10, 20, 30, 40])
        #expect(try padding("padding:1:2:3:4") == padding("pd:1:2:3:4"))
        // An empty side takes its CSS partner, as a missing one does.
        #expect(try padding("pd:10::30") == [10, 10, 30, 10])
        #expect(try padding("pd:0") == [0, 0, 0, 0])
        #expect(try urlOptions("pd:0").padding.isEnabled == false)
    }

    /// A later `padding` changes the sides it names; the others are copied from the sides set
    /// (top to right and bottom, right to left), as imgproxy's parser does.
    @Test func aLaterPaddingCopiesFromTheSidesAlreadySet() throws {
        #expect(try padding("pd:10:20:30:40/padding::5") == [10, 5, 10, 5])
        // Nothing was set: an empty top copies nothing.
        #expect(try padding("pd::7") == [0, 7, 0, 7])
        #expect(try padding("pd::7/pd:::3") == [0, 7, 3, 7])
        #expect(try padding("pd:") == [0, 0, 0, 0])
    }

    @Test func badPaddingIsRefusedNamingTheOption() throws {
        try expectRefused("pd:-1", naming: "pd")
        try expectRefused("padding:10:x", naming: "padding")
        try expectRefused("pd:1.5", naming: "pd")
        try expectRefused("pd:99999999999999999999", naming: "pd")
        try expectRefused("pd:2147483648", naming: "pd")
        try expectRefused("pd:1:2:3:4:5", naming: "pd")
        #expect(try padding("pd:2147483647") == [2147483647, 2147483647, 2147483647, 2147483647])
    }

    @Test func pixelateTakesOneBlockSize() throws {
        #expect(try urlOptions("pixelate:30").pixelate == 30)
        #expect(try urlOptions("pix:30") == urlOptions("pixelate:30"))
        #expect(try urlOptions("pix:0").pixelate == 0)
        #expect(ProcessingOptions().pixelate == 1)
        try expectRefused("pix:-2", naming: "pix")
        try expectRefused("pix:big", naming: "pix")
        try expectRefused("pix:4.5", naming: "pix")
        try expectRefused("pix:99999999999999999999", naming: "pix")
        try expectRefused("pixelate:4:4", naming: "pixelate")
    }

    @Test func extendAspectRatioTakesExtendsGrammar() throws {
        let options = try urlOptions("extend_aspect_ratio:1:soea:2:3")
        #expect(options.extendAspectRatio == .init(enabled: true, gravity: .init(.southEast, x: 2, y: 3)))
        #expect(try urlOptions("exar:1:soea:2:3") == options)
        #expect(try urlOptions("extend_ar:1:soea:2:3") == options)
        #expect(try urlOptions("exar:true").extendAspectRatio == .init(enabled: true))
        #expect(try urlOptions("exar:1:fp:0.5:0.25").extendAspectRatio.gravity == .init(.focusPoint, x: 0.5, y: 0.25))
        // The default is false:ce:0:0, and extend is left alone.
        #expect(ProcessingOptions().extendAspectRatio == .init(enabled: false, gravity: .center))
        #expect(try urlOptions("exar:1").extend == .init())
        try expectRefused("exar:1:sm", naming: "exar")
        try expectRefused("exar:1:up", naming: "exar")
        try expectRefused("exar:1:no:1:2:3", naming: "exar")
        try expectRefused("exar:1:no:x", naming: "exar")
    }

    /// Each option is part of the canonical form (and so of the result cache key); off is absent.
    @Test func theCanonicalFormHoldsEachOption() throws {
        #expect(try urlOptions("pd:1:2:3").canonicalPath == "pd:1:2:3:2")
        #expect(try urlOptions("pd:0").canonicalPath == "")
        #expect(try urlOptions("pix:8").canonicalPath == "pix:8")
        #expect(try urlOptions("pix:1").canonicalPath == "")
        #expect(try urlOptions("exar:1:no").canonicalPath == "exar:1:no:0:0")
        #expect(try urlOptions("exar:0:no").canonicalPath == "")
        #expect(try urlOptions("pd:5").canonicalPath != urlOptions("pd:6").canonicalPath)
    }
}
