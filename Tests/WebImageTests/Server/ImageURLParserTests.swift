import Synchronization
import Testing
@testable import WebImage
@testable import WebImageServer

@Suite("Image URL parsing: forms, signatures, presets")
struct ImageURLParserTests {
    static let source = "http://img.example.com/pretty/image.jpg"
    static let base64Source = "aHR0cDovL2ltZy5leGFtcGxlLmNvbS9wcmV0dHkvaW1hZ2UuanBn"

    // MARK: forms

    @Test func plainSourceWithOptions() throws {
        let parsed = try makeURLParser().parse("/insecure/rs:fill:300:200/q:70/plain/\(Self.source)")
        #expect(parsed.source == Self.source)
        #expect(parsed.options.resizingType == .fill)
        #expect(parsed.options.width == 300 && parsed.options.height == 200)
        #expect(parsed.options.quality == 70)
        #expect(parsed.options.format == nil)
    }

    @Test func plainSourceWithoutOptions() throws {
        let parsed = try makeURLParser().parse("/_/plain/\(Self.source)")
        #expect(parsed.source == Self.source)
        #expect(parsed.options == ProcessingOptions())
    }

    @Test func plainSourceIsPercentDecodedButKeepsPlus() throws {
        let parsed = try makeURLParser().parse("/x/plain/http%3A%2F%2Fexample.com%2Fa%20b+c.jpg%3Fv%3D1%26w%3D2%40x%25")
        #expect(parsed.source == "http://example.com/a b+c.jpg?v=1&w=2@x%")
        let unicode = try makeURLParser().parse("/x/plain/http://example.com/%C3%BCber.jpg")
        #expect(unicode.source == "http://example.com/über.jpg")
    }

    @Test(arguments: ["/x/plain/http://example.com/a%zz.jpg", "/x/plain/http://example.com/a.jpg%4",
                      "/x/plain/http://example.com/a.jpg%", "/x/plain/http://example.com/%FF.jpg"])
    func malformedPercentEscapesAreBadRequests(target: String) throws {
        let error = try #require(urlFailure(target, try makeURLParser()))
        #expect(error.status == 400 && error.name == "invalid_url")
    }

    @Test func plainExtensionSetsTheFormatAndOverridesF() throws {
        let parsed = try makeURLParser().parse("/x/f:webp/plain/\(Self.source)@png")
        #expect(parsed.source == Self.source)
        #expect(parsed.options.format == .png)
        let empty = try makeURLParser().parse("/x/f:webp/plain/\(Self.source)@")
        #expect(empty.options.format == .webp)
    }

    @Test func plainSourceRefusesTwoAtSigns() throws {
        let error = try #require(urlFailure("/x/plain/http://user@example.com/a.jpg@png", try makeURLParser()))
        #expect(error.status == 400 && error.name == "invalid_url")
        #expect(error.message.contains("@"))
        // Encoded, the @ is part of the URL.
        let parsed = try makeURLParser().parse("/x/plain/http://user%40example.com/a.jpg@png")
        #expect(parsed.source == "http://user@example.com/a.jpg" && parsed.options.format == .png)
    }

    @Test func base64Source() throws {
        let parsed = try makeURLParser().parse("/x/rs:fit:300:300/\(Self.base64Source)")
        #expect(parsed.source == Self.source)
        #expect(parsed.options.width == 300)
    }

    @Test func base64SourceInChunksWithExtensionAndPadding() throws {
        let chunked = try makeURLParser().parse("/x/aHR0cDovL2ltZy5l/eGFtcGxlLmNvbS9w/cmV0dHkvaW1hZ2Uu/anBn.png")
        #expect(chunked.source == Self.source)
        #expect(chunked.options.format == .png)
        let padded = try makeURLParser().parse("/x/aHR0cDovL2EuYi9jLmpwZw==.jpg")
        #expect(padded.source == "http://a.b/c.jpg" && padded.options.format == .jpeg)
        let unpadded = try makeURLParser().parse("/x/aHR0cDovL2EuYi9jLmpwZw")
        #expect(unpadded.source == "http://a.b/c.jpg" && unpadded.options.format == nil)
    }

    @Test(arguments: ["/x/aHR0cDovL2EuYi9jLmpwZw.jpg.png", "/x/aHR0cDov+L2EuYi9jLmpwZw", "/x/a", "/x/.png",
                      "/x/rs:fit:1:1/plain"])
    func badBase64SourcesAreBadRequests(target: String) throws {
        let error = try #require(urlFailure(target, try makeURLParser()))
        #expect(error.status == 400 && error.name == "invalid_url", "\(error)")
    }

    @Test func unknownExtensionIsABadArgument() throws {
        let error = try #require(urlFailure("/x/plain/\(Self.source)@xyz", try makeURLParser()))
        #expect(error.status == 400 && error.name == "invalid_argument")
        #expect(error.message.contains("extension") && error.message.contains("xyz"))
    }

    @Test func theQueryIsDropped() throws {
        let parsed = try makeURLParser().parse("/x/w:10/plain/http://example.com/a.jpg?size=big")
        #expect(parsed.source == "http://example.com/a.jpg")
        #expect(parsed.options.width == 10)
    }

    @Test(arguments: ["", "x", "/", "//w:10/plain/a", "/insecure", "/insecure/", "insecure/plain/http://a/b"])
    func malformedTargetsAreBadRequests(target: String) throws {
        let error = try #require(urlFailure(target, try makeURLParser()))
        #expect(error.status == 400 && error.name == "invalid_url", "\(error)")
    }

    @Test func noSourceAfterTheOptions() throws {
        let error = try #require(urlFailure("/x/rs:fit:1:1/w:2", try makeURLParser()))
        #expect(error.status == 400 && error.name == "invalid_url" && error.message.contains("source"))
    }

    @Test func theOldBasicFormatIsRefused() throws {
        let error = try #require(urlFailure("/x/fill/300/300/ce/0/\(Self.base64Source)", try makeURLParser()))
        #expect(error.status == 400 && error.name == "invalid_url" && error.message.contains("basic"))
    }

    @Test func optionSegmentsEndAtTheFirstSegmentWithoutAColon() throws {
        // "plain" ends the options; a colon inside the source is not an option.
        let parsed = try makeURLParser().parse("/x/w:5/plain/http://example.com:8080/q:1/a.jpg")
        #expect(parsed.options.width == 5 && parsed.options.quality == 0)
        #expect(parsed.source == "http://example.com:8080/q:1/a.jpg")
    }

    // MARK: repairs

    @Test func encodedColonsInOptionsAreRepaired() throws {
        let parsed = try makeURLParser().parse("/x/rs%3Afill%3A40%3A30/plain/http://example.com/a%3Ab.jpg")
        #expect(parsed.options.resizingType == .fill && parsed.options.width == 40 && parsed.options.height == 30)
        // Only the options: the source keeps its own escape.
        #expect(parsed.source == "http://example.com/a:b.jpg")
    }

    @Test func collapsedSchemeSlashesAreRepaired() throws {
        #expect(try makeURLParser().parse("/x/plain/http:/example.com/a.jpg").source == "http://example.com/a.jpg")
        #expect(try makeURLParser().parse("/x/w:1/plain/https:/example.com/a.jpg").source == "https://example.com/a.jpg")
        #expect(try makeURLParser().parse("/x/plain/local:/images/a.jpg").source == "local:///images/a.jpg")
        #expect(try makeURLParser().parse("/x/plain/http://example.com/a.jpg").source == "http://example.com/a.jpg")
    }

    @Test func repairsHappenBeforeTheSignatureCheck() throws {
        let signer = try URLSignerTests.signer()
        let parser = try makeURLParser(signer: signer)
        let signature = signer.signature(for: "/rs:fit:300:300/plain/http://example.com/a.jpg")
        let parsed = try parser.parse("/\(signature)/rs%3Afit%3A300%3A300/plain/http:/example.com/a.jpg")
        #expect(parsed.source == "http://example.com/a.jpg" && parsed.options.width == 300)
    }

    // MARK: signatures

    @Test func signedURLsFromTheReference() throws {
        let parser = try makeURLParser(signer: try URLSignerTests.signer())
        let plain = try parser.parse("/m3k5QADfcKPDj-SDI2AIogZbC3FlAXszuwhtWXYqavc" + URLSignerTests.plainPath)
        #expect(plain.source == Self.source && plain.options.width == 300)
        let base64 = try parser.parse("/XKufL-dXGOamImg12ByLlGJXxElxC63lePLySOmXZyM" + URLSignerTests.base64Path + ".png")
        #expect(base64.source == Self.source && base64.options.format == .png)
        // The query is not signed.
        _ = try parser.parse("/m3k5QADfcKPDj-SDI2AIogZbC3FlAXszuwhtWXYqavc" + URLSignerTests.plainPath + "?cache=no")
    }

    @Test func theDocumentedSignedURL() throws {
        let signer = try URLSigner(keys: ["736563726574"], salts: ["68656C6C6F"])
        let parsed = try makeURLParser(signer: signer).parse(
            "/oKfUtW34Dvo2BGQehJFR4Nr0_rIjOtdtzJ3QFsUcXH8/rs:fill:300:400:0/g:sm/aHR0cDovL2V4YW1w/bGUuY29tL2ltYWdl/cy9jdXJpb3NpdHku/anBn.png")
        #expect(parsed.source == "http://example.com/images/curiosity.jpg")
        #expect(parsed.options.resizingType == .fill && parsed.options.width == 300 && parsed.options.height == 400)
        #expect(!parsed.options.enlarge && parsed.options.gravity.type == .smart && parsed.options.format == .png)
    }

    @Test(arguments: [
        "/insecure" + URLSignerTests.plainPath,
        "/m3k5QADfcKPDj-SDI2AIogZbC3FlAXszuwhtWXYqavc" + URLSignerTests.plainPath + "x",
        "/m3k5QADfcKPDj-SDI2AIogZbC3FlAXszuwhtWXYqav" + URLSignerTests.plainPath,
        "/m3k5QADfcKPDj-SDI2AIogZbC3FlAXszuwhtWXYqavc=" + URLSignerTests.plainPath,
        "/m3k5QADfcKPDj-SDI2AIogZbC3FlAXszuwhtWXYqavc/q:10" + URLSignerTests.plainPath,
    ])
    func badSignaturesAreForbidden(target: String) throws {
        let error = try #require(urlFailure(target, try makeURLParser(signer: try URLSignerTests.signer())))
        #expect(error == .invalidSignature)
        #expect(error.status == 403)
    }

    @Test func theSignatureIsCheckedBeforeTheOptions() throws {
        let parser = try makeURLParser(signer: try URLSignerTests.signer())
        let error = try #require(urlFailure("/bad/nonsense:1/plain/http://a/b.jpg", parser))
        #expect(error.name == "invalid_signature")
    }

    @Test func unsignedServersTakeAnySignatureSegment() throws {
        let parser = try makeURLParser()
        for signature in ["insecure", "unsafe", "_", "m3k5QADfcKPDj-SDI2AIogZbC3FlAXszuwhtWXYqavc", "anything-at-all"] {
            #expect(try parser.parse("/\(signature)/w:1/plain/http://a/b.jpg").options.width == 1)
        }
    }

    @Test func unsignedServersRefuseAForgottenSignature() throws {
        let error = try #require(urlFailure("/rs:fit:300:300/plain/http://a/b.jpg", try makeURLParser()))
        #expect(error.status == 403 && error.name == "missing_signature")
        #expect(error.message.contains("rs:fit:300:300"))
    }

    // MARK: presets

    @Test func theDefaultPresetAppliesFirst() throws {
        let presets = ["default": "q:50/rs:fit:100:100/sm:0"]
        let options = try urlOptions("q:80/h:40", presets: presets)
        #expect(options.quality == 80)          // the URL wins
        #expect(options.width == 100 && options.height == 40)
        #expect(!options.stripMetadata)         // untouched by the URL
        let plain = try makeURLParser(presets: presets).parse("/x/plain/http://a/b.jpg").options
        #expect(plain.quality == 50 && plain.width == 100)
    }

    @Test func namedPresetsApplyInPlace() throws {
        let presets = ["thumb": "rs:fill:150:150/q:70", "webp": "f:webp"]
        let options = try urlOptions("q:90/pr:thumb:webp/w:200", presets: presets)
        #expect(options.resizingType == .fill)
        #expect(options.quality == 70)          // the preset came after q:90
        #expect(options.width == 200 && options.height == 150)
        #expect(options.format == .webp)
        #expect(try urlOptions("preset:thumb", presets: presets).width == 150)
    }

    @Test func unknownPresetsAreBadRequests() throws {
        let error = try #require(try optionFailure("pr:nope", presets: ["thumb": "w:1"]))
        #expect(error.status == 400 && error.name == "unknown_preset" && error.message.contains("nope"))
    }

    @Test func recursivePresetsAreSkipped() throws {
        let presets = ["a": "pr:b/w:10", "b": "pr:a/h:20", "default": "pr:default/q:33"]
        let options = try urlOptions("pr:a", presets: presets)
        #expect(options.width == 10 && options.height == 20 && options.quality == 33)
    }

    @Test func presetsAreCheckedAtStartup() throws {
        #expect(throws: URLConfigurationError.self) { try makeURLParser(presets: ["a": "w:10/oops"]) }
        #expect(throws: URLConfigurationError.self) { try makeURLParser(presets: ["a": "nope:1"]) }
        #expect(throws: URLConfigurationError.self) { try makeURLParser(presets: ["a": "q:500"]) }
        #expect(throws: URLConfigurationError.self) { try makeURLParser(presets: ["a": "pr:missing"]) }
        #expect(throws: URLConfigurationError.self) { try makeURLParser(presets: ["": "w:1"]) }
        // Security options need signing, in presets too.
        #expect(throws: URLConfigurationError.self) { try makeURLParser(presets: ["a": "msr:10"]) }
        _ = try makeURLParser(signer: try URLSignerTests.signer(), presets: ["a": "msr:10"])
        // Slashes around and between segments are tolerated; a past expiry is not checked at startup.
        _ = try makeURLParser(presets: ["a": "/w:10//h:5/", "old": "exp:1"])
        do {
            _ = try ImageURLParser(presets: ["thumb": "q:500"])
            Issue.record("a preset with q:500 was accepted")
        } catch {
            #expect(error.message.contains("thumb") && error.message.contains("500"))
        }
    }

    // MARK: expiry and security options

    @Test func expiresInTheFutureIsKept() throws {
        #expect(try urlOptions("exp:\(urlTestNow + 60)").expires == urlTestNow + 60)
        #expect(try urlOptions("expires:\(urlTestNow)").expires == urlTestNow)
        #expect(try urlOptions("exp:0").expires == nil)
    }

    @Test func expiredURLsAreGone() throws {
        let error = try #require(try optionFailure("exp:\(urlTestNow - 1)"))
        #expect(error.status == 410 && error.name == "expired")
        #expect(error == .expired(urlTestNow - 1))
        let bad = try #require(try optionFailure("exp:soon"))
        #expect(bad.status == 400 && bad.name == "invalid_argument" && bad.message.contains("exp"))
    }

    @Test func theClockIsReadPerRequest() throws {
        let clock = Clock()
        let parser = try ImageURLParser(now: { clock.now })
        let target = "/x/exp:100/plain/http://a/b.jpg"
        #expect(try parser.parse(target).options.expires == 100)
        clock.now = 101
        #expect(urlFailure(target, parser)?.status == 410)
    }

    @Test(arguments: ["msr:10", "max_src_resolution:10", "msfs:1000", "max_src_file_size:1000"])
    func securityOptionsNeedSigning(option: String) throws {
        let error = try #require(try optionFailure(option))
        #expect(error.status == 403 && error.name == "forbidden_option")
        #expect(error.message.contains(option.prefix { $0 != ":" }))
    }

    @Test func securityOptionsInSignedURLs() throws {
        let signer = try URLSignerTests.signer()
        let parser = try makeURLParser(signer: signer)
        let options = try parser.parse(signer.signedPath("/msr:12.5/msfs:1000000/plain/http://a/b.jpg")).options
        #expect(options.maxSourceResolution == 12.5)
        #expect(options.maxSourceFileSize == 1_000_000)
        let bad = try #require(urlFailure(signer.signedPath("/msfs:-1/plain/http://a/b.jpg"), parser))
        #expect(bad.status == 400 && bad.message.contains("msfs"))
    }

    // MARK: canonical keys

    @Test func canonicalKeysIgnoreSpelling() throws {
        let parser = try makeURLParser(presets: ["thumb": "rs:fill:300:200", "default": "q:60"])
        let keys = try [
            "/a/rs:fill:300:200/q:60/plain/http://a/b.jpg",
            "/b/q:60/h:200/rt:fill/w:300/plain/http://a/b.jpg",
            "/c/resizing_type:fill/width:300/height:200/plain/http://a/b.jpg",
            "/d/pr:thumb/plain/http://a/b.jpg",
            "/e/pr:thumb/aHR0cDovL2EvYi5qcGc",
            "/f/w:1/rs:fill:300:200/plain/http%3A%2F%2Fa%2Fb.jpg?x=1",
        ].map { try parser.parse($0).canonicalKey }
        #expect(Set(keys).count == 1, "\(keys)")
        #expect(keys[0] == "rt:fill/w:300/h:200/q:60|http://a/b.jpg")
    }

    @Test func canonicalKeysTellResultsApart() throws {
        let parser = try makeURLParser()
        let targets = [
            "/x/plain/http://a/b.jpg", "/x/plain/http://a/c.jpg", "/x/w:1/plain/http://a/b.jpg",
            "/x/cb:1/plain/http://a/b.jpg", "/x/cb:2/plain/http://a/b.jpg", "/x/plain/http://a/b.jpg@png",
            "/x/fn:a/plain/http://a/b.jpg", "/x/att:1/plain/http://a/b.jpg", "/x/exp:\(urlTestNow + 9)/plain/http://a/b.jpg",
            "/x/g:ce:0.25:0/plain/http://a/b.jpg", "/x/g:ce:0:0.25/plain/http://a/b.jpg",
            // Free text cannot forge a separator.
            "/x/fn:a%7Cb/plain/http://a/b.jpg", "/x/fn:a/plain/b|http://a/b.jpg",
        ]
        let keys = try targets.map { try parser.parse($0).canonicalKey }
        #expect(Set(keys).count == targets.count, "\(keys)")
    }

    @Test func canonicalKeysAreImgproxyOptions() throws {
        // The options part parses back to the same options.
        let parser = try makeURLParser()
        let parsed = try parser.parse("/x/rs:fill-down:30:40:1:1:soea:2:3/g:fp:0.5:0.25/c:0.5:10:nowe/z:1.5:2/dpr:2/mw:5/mh:6"
            + "/rot:-90/fl:1:0/bg:ff8000/bl:1.5/sh:0.3/q:70/fq:webp:60:jpeg:80/ar:0/sm:0/att:t/fn:My%20file:0"
            + "/cb:v2/exp:\(urlTestNow + 5)/plain/http://a/b.jpg@avif")
        let optionsPath = String(parsed.canonicalKey.prefix { $0 != "|" })
        let reparsed = try parser.parse("/x/\(optionsPath)/plain/http://a/b.jpg")
        #expect(reparsed.options == parsed.options, "\(optionsPath)")
        #expect(reparsed.canonicalKey == parsed.canonicalKey)
    }
}

/// A settable clock for expiry tests.
private final class Clock: Sendable {
    private let value = Mutex<Int64>(50)
    var now: Int64 {
        get { value.withLock { $0 } }
        set { value.withLock { $0 = newValue } }
    }
}
