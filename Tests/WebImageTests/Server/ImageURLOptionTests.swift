import Testing
@testable import WebImage
@testable import WebImageServer

@Suite("Image URL options: names, arguments, errors")
struct ImageURLOptionTests {
    /// Expects `options` to be refused with 400 `name`, the message naming `option`.
    func expectBadRequest(_ options: String, _ name: String = "invalid_argument", naming option: String? = nil,
                          sourceLocation: SourceLocation = #_sourceLocation) throws {
        let error = try #require(try optionFailure(options), "\(options) parsed", sourceLocation: sourceLocation)
        #expect(error.status == 400, "\(options): \(error)", sourceLocation: sourceLocation)
        #expect(error.name == name, "\(options): \(error)", sourceLocation: sourceLocation)
        let named = option ?? String(options.split(separator: "/").last!.prefix { $0 != ":" })
        #expect(error.message.contains("\"\(named)\""), "\(options): \(error.message)", sourceLocation: sourceLocation)
    }

    // MARK: names

    /// Full and short names spell the same option.
    @Test(arguments: [
        ("resize:fill:10:20:1:1", "rs:fill:10:20:1:1"), ("size:10:20", "s:10:20"), ("resizing_type:force", "rt:force"),
        ("width:10", "w:10"), ("height:10", "h:10"), ("min-width:10", "mw:10"), ("min-height:10", "mh:10"),
        ("zoom:2", "z:2"), ("enlarge:1", "el:1"), ("extend:1:no", "ex:1:no"), ("gravity:so", "g:so"),
        ("crop:10:20", "c:10:20"), ("auto_rotate:0", "ar:0"), ("rotate:90", "rot:90"), ("flip:1:1", "fl:1:1"),
        ("background:fff", "bg:fff"), ("blur:2", "bl:2"), ("sharpen:2", "sh:2"), ("quality:5", "q:5"),
        ("format_quality:webp:5", "fq:webp:5"), ("format:png", "f:png"), ("ext:png", "f:png"),
        ("cachebuster:x", "cb:x"), ("expires:1800000000", "exp:1800000000"), ("filename:x", "fn:x"),
        ("return_attachment:1", "att:1"), ("strip_metadata:0", "sm:0"), ("dpr:2", "dpr:2.0"),
        ("padding:10", "pd:10"), ("pixelate:4", "pix:4"), ("extend_aspect_ratio:1", "exar:1"), ("extend_ar:1", "exar:1"),
    ])
    func fullAndShortNames(full: String, short: String) throws {
        let long = try urlOptions(full), brief = try urlOptions(short)
        #expect(long == brief)
        #expect(long != ProcessingOptions(), "\(full) changed nothing")
    }

    @Test func unknownOptionsAreNamed() throws {
        try expectBadRequest("w:10/foo:1", "unknown_option")
        try expectBadRequest("W:10", "unknown_option")               // names are case-sensitive
        try expectBadRequest(":10", "unknown_option", naming: "")
        let unsupported = try #require(try optionFailure("adjust:10"))
        #expect(unsupported.name == "unknown_option" && unsupported.message.contains("not supported"))
    }

    @Test func laterOptionsOverrideEarlierOnes() throws {
        let options = try urlOptions("w:10/q:20/w:30/rs:fit:40/q:50")
        #expect(options.width == 40 && options.quality == 50)
    }

    // MARK: resize and size

    @Test func resizeSetsEveryPart() throws {
        let options = try urlOptions("rs:fill-down:300:400:1:1:soea:2:3")
        #expect(options.resizingType == .fillDown)
        #expect(options.width == 300 && options.height == 400 && options.enlarge)
        #expect(options.extend == .init(enabled: true, gravity: .init(.southEast, x: 2, y: 3)))
    }

    @Test func emptyResizeArgumentsKeepTheCurrentValues() throws {
        let options = try urlOptions("rs:fill:100:100:1/rs:::200")
        #expect(options.resizingType == .fill && options.width == 100 && options.height == 200 && options.enlarge)
        let size = try urlOptions("w:7/s::9")
        #expect(size.width == 7 && size.height == 9)
        #expect(try urlOptions("rs:auto").resizingType == .auto)
    }

    @Test func extendWithoutGravityKeepsTheCurrentOne() throws {
        let options = try urlOptions("ex:1:so/rs:fit:10:10:0:1")
        #expect(options.extend == .init(enabled: true, gravity: .init(.south)))
        #expect(try urlOptions("ex:1:no/ex:0").extend.enabled == false)
    }

    @Test func resizeErrors() throws {
        try expectBadRequest("rs:stretch:10:10")
        try expectBadRequest("rs:fit:-1:10")
        try expectBadRequest("rs:fit:10:ten")
        try expectBadRequest("rs:fit:1:2:1:1:no:1:2:3")                // 9 arguments
        try expectBadRequest("s:1:2:1:1:no:1:2:3")                     // 8 arguments
        try expectBadRequest("rs:fit:1:1:0:1:sm")                      // no smart extension
        try expectBadRequest("rt:")
        try expectBadRequest("rt:fit:fill")
    }

    @Test func sizes() throws {
        let options = try urlOptions("w:10/h:20/mw:30/mh:40")
        #expect(options.width == 10 && options.height == 20 && options.minWidth == 30 && options.minHeight == 40)
        #expect(try urlOptions("w:+5").width == 5)
        for bad in ["w:-1", "w:1.5", "w:", "w:abc", "h:99999999999999999999", "mw:-3", "mh:x", "w:1:2"] {
            try expectBadRequest(bad)
        }
    }

    @Test func zoomAndDpr() throws {
        let one = try urlOptions("z:2")
        #expect(one.zoomX == 2 && one.zoomY == 2)
        let two = try urlOptions("z:1.5:0.5/dpr:3")
        #expect(two.zoomX == 1.5 && two.zoomY == 0.5 && two.dpr == 3)
        for bad in ["z:0", "z:-1", "z:1:0", "z:1:2:3", "dpr:0", "dpr:-2", "dpr:nan", "dpr:inf", "dpr:abc", "z:"] {
            try expectBadRequest(bad)
        }
    }

    // MARK: booleans

    @Test(arguments: ["1", "t", "T", "TRUE", "true", "True"])
    func trueBooleans(text: String) throws {
        let options = try urlOptions("el:\(text)/att:\(text)/ar:0/ar:\(text)/sm:0/sm:\(text)/fl:\(text):\(text)")
        #expect(options.enlarge && options.returnAttachment && options.autoRotate && options.stripMetadata)
        #expect(options.flipHorizontal && options.flipVertical)
    }

    @Test(arguments: ["0", "f", "F", "FALSE", "false", "False", "", "yes", "on", "2", "tRuE"])
    func falseAndInvalidBooleans(text: String) throws {
        // imgproxy counts an invalid boolean as false.
        let options = try urlOptions("el:1/el:\(text)/ar:\(text)/sm:\(text)/att:1/att:\(text)/ex:1/ex:\(text)")
        #expect(!options.enlarge && !options.autoRotate && !options.stripMetadata && !options.returnAttachment)
        #expect(!options.extend.enabled)
    }

    @Test func booleansTakeOneArgument() throws {
        try expectBadRequest("el:1:1")
        try expectBadRequest("att:1:0")
        try expectBadRequest("fl:1:1:1")
    }

    @Test func flipSides() throws {
        let horizontal = try urlOptions("fl:1")
        #expect(horizontal.flipHorizontal && !horizontal.flipVertical)
        let vertical = try urlOptions("fl:1:1/fl::0")
        #expect(vertical.flipHorizontal && !vertical.flipVertical)
    }

    // MARK: gravity and crop

    @Test(arguments: ProcessingOptions.GravityType.allCases.filter { $0 != .focusPoint })
    func gravityTypes(type: ProcessingOptions.GravityType) throws {
        #expect(try urlOptions("g:\(type.rawValue)").gravity == .init(type))
    }

    @Test func gravityOffsets() throws {
        #expect(try urlOptions("g:no:10:-5.5").gravity == .init(.north, x: 10, y: -5.5))
        #expect(try urlOptions("g:ce:0.25").gravity == .init(.center, x: 0.25, y: 0))
        #expect(try urlOptions("g:fp:0.5:0.25").gravity == .init(.focusPoint, x: 0.5, y: 0.25))
        #expect(try urlOptions("g:fp:0:1").gravity == .init(.focusPoint, x: 0, y: 1))
        // A new gravity starts from zero offsets.
        #expect(try urlOptions("g:fp:0.3:0.3/g:ce").gravity == .init(.center))
    }

    @Test func gravityErrors() throws {
        for bad in ["g:xx", "g:", "g:ce:1:2:3", "g:sm:1", "g:fp:0.5", "g:fp:1.5:0", "g:fp:0.5:-0.1", "g:no:x",
                    "g:fp:0.5:0.5:1", "g:we:inf"] {
            try expectBadRequest(bad)
        }
    }

    @Test func extendGravity() throws {
        #expect(try urlOptions("ex:1:fp:0.2:0.8").extend == .init(enabled: true, gravity: .init(.focusPoint, x: 0.2, y: 0.8)))
        #expect(try urlOptions("ex:1:nowe:5:6").extend.gravity == .init(.northWest, x: 5, y: 6))
        try expectBadRequest("ex:1:sm")
        try expectBadRequest("ex:1:no:1:2:3")
    }

    @Test func crop() throws {
        #expect(try urlOptions("c:100:50").crop == .init(width: 100, height: 50))
        #expect(try urlOptions("c:0.5").crop == .init(width: 0.5, height: 0))
        #expect(try urlOptions("c:0.5:0.25:nowe:10:20").crop == .init(width: 0.5, height: 0.25, gravity: .init(.northWest, x: 10, y: 20)))
        #expect(try urlOptions("c:10:10:sm").crop?.gravity == .init(.smart))
        #expect(try urlOptions("c:10:10/c:0:0").crop == nil)
        for bad in ["c:-1", "c:", "c:10:x", "c:10:10:up", "c:10:10:no:1:2:3"] {
            try expectBadRequest(bad)
        }
    }

    // MARK: rotation and colour

    @Test func rotation() throws {
        #expect(try urlOptions("rot:90").rotate == 90)
        #expect(try urlOptions("rot:-90").rotate == 270)
        #expect(try urlOptions("rot:450").rotate == 90)
        #expect(try urlOptions("rot:360").rotate == 0)
        let error = try #require(try optionFailure("rot:45"))
        #expect(error.status == 400 && error.message.contains("multiple of 90"))
        try expectBadRequest("rot:ninety")
    }

    @Test func background() throws {
        #expect(try urlOptions("bg:255:0:10").background == RGBA(r: 255, g: 0, b: 10))
        #expect(try urlOptions("bg:fff").background == .white)
        #expect(try urlOptions("bg:FF8000").background == RGBA(r: 255, g: 128, b: 0))
        #expect(try urlOptions("bg:a1b").background == RGBA(r: 0xAA, g: 0x11, b: 0xBB))
        #expect(try urlOptions("bg:fff/bg:").background == nil)
        for bad in ["bg:256:0:0", "bg:1:2", "bg:1:2:3:4", "bg:12345", "bg:ggg", "bg:-1:0:0", "bg:ffff"] {
            try expectBadRequest(bad)
        }
    }

    @Test func blurAndSharpen() throws {
        let options = try urlOptions("bl:2.5/sh:0.7")
        #expect(options.blur == 2.5 && options.sharpen == 0.7)
        #expect(try urlOptions("bl:3/bl:0").blur == 0)
        try expectBadRequest("bl:-1")
        try expectBadRequest("sh:x")
    }

    // MARK: output

    @Test func quality() throws {
        #expect(try urlOptions("q:0").quality == 0)
        #expect(try urlOptions("q:100").quality == 100)
        for bad in ["q:101", "q:-1", "q:abc", "q:50.5"] { try expectBadRequest(bad) }
    }

    @Test func formatQuality() throws {
        let options = try urlOptions("fq:webp:70:jpeg:80/fq:png:0:avif:50")
        #expect(options.formatQuality == [.webp: 70, .jpeg: 80, .avif: 50])
        #expect(try urlOptions("fq:jpg:90").formatQuality == [.jpeg: 90])
        try expectBadRequest("fq:webp")
        try expectBadRequest("fq:xyz:50")
        try expectBadRequest("fq:webp:500")
    }

    @Test(arguments: [
        ("jpg", ImageFormat.jpeg), ("jpeg", .jpeg), ("png", .png), ("webp", .webp), ("avif", .avif), ("gif", .gif),
        ("ico", .ico), ("heic", .heic), ("bmp", .bmp), ("tiff", .tiff), ("jxl", .jpegXL), ("svg", .svg), ("PNG", .png),
    ])
    func formats(name: String, format: ImageFormat) throws {
        #expect(try urlOptions("f:\(name)").format == format)
        #expect(try makeURLParser().parse("/x/plain/http://a/b@\(name)").options.format == format)
        #expect(try makeURLParser().parse("/x/aHR0cDovL2EvYg.\(name)").options.format == format)
    }

    /// `best` in the format option or the extension: the server chooses the format; a later
    /// format option replaces it, and it a format; the canonical key spells it `f:best`.
    @Test func bestFormat() throws {
        for options in [try urlOptions("f:best"), try urlOptions("format:BEST"), try urlOptions("f:png/f:best"),
                         try makeURLParser().parse("/x/plain/http://a/b@best").options,
                         try makeURLParser().parse("/x/f:png/aHR0cDovL2EvYg.best").options] {
            #expect(options.bestFormat && options.format == nil)
        }
        let replaced = try urlOptions("f:best/f:webp")
        #expect(!replaced.bestFormat && replaced.format == .webp)
        #expect(try urlOptions("rs:fit:10:10/f:best").canonicalPath == "w:10/h:10/f:best")
        #expect(try makeURLParser().parse("/x/plain/http://a/b@best").canonicalKey
            == (try makeURLParser().parse("/x/format:best/plain/http://a/b")).canonicalKey)
    }

    @Test func unknownFormats() throws {
        for bad in ["f:pdf", "f:mp4", "f:", "format:jpg2", "ext:webp:png"] { try expectBadRequest(bad) }
    }

    @Test func cacheBusterFilenameAttachment() throws {
        let options = try urlOptions("cb:v2/fn:my-file/att:1")
        #expect(options.cacheBuster == "v2" && options.filename == "my-file" && options.returnAttachment)
        #expect(try urlOptions("cb:v2/cb:").cacheBuster == nil)
        // Not percent-decoded unless base64-encoded.
        #expect(try urlOptions("fn:my%20file").filename == "my%20file")
        #expect(try urlOptions("fn:bXktZmlsZQ:1").filename == "my-file")
        #expect(try urlOptions("fn:bXktZmlsZQ==:true").filename == "my-file")
        #expect(try urlOptions("fn:w7xuw68g4oKsLmpwZw:t").filename == "ünï €.jpg")
        #expect(try urlOptions("fn:bXktZmlsZQ:0").filename == "bXktZmlsZQ")
        try expectBadRequest("fn:not*base64:1")
        try expectBadRequest("fn:a:1:2")
        try expectBadRequest("cb:a:b")
    }

    @Test func messagesNameTheOptionAsWritten() throws {
        let error = try #require(try optionFailure("quality:abc"))
        #expect(error.message.contains("\"quality\"") && error.message.contains("abc"))
        let short = try #require(try optionFailure("q:abc"))
        #expect(short.message.contains("\"q\""))
    }

    @Test func errorsFromPresetsNameTheOption() throws {
        // A preset applied at request time can still fail on what the URL adds.
        let error = try #require(try optionFailure("pr:p/w:x", presets: ["p": "h:1"]))
        #expect(error.name == "invalid_argument" && error.message.contains("\"w\""))
    }
}
