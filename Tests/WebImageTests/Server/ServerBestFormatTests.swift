import Foundation
import Testing
@testable import WebImage
@testable import WebImageServer
@testable import WebImageCodecs

/// `format:best` over HTTP, on a photo-like picture and a flat graphic with alpha: the answer
/// reaches the SSIM target against the processed image (the same URL as a lossless PNG), is no
/// larger than the lowest-quality encoding reaching it in any candidate format (found here by
/// requesting fixed formats and qualities and measuring each), honours `Accept`, and is made once.
@Suite("Server: format:best and auto-quality")
struct ServerBestFormatTests {
    static let chrome = "image/avif,image/webp,image/apng,image/*,*/*;q=0.8"
    static let target = 0.98

    /// 192×144: smooth gradients, a disc and deterministic grain (±3), opaque.
    static let photo: Bitmap = Bitmap(width: 192, height: 144) { out in
        var state: UInt32 = 12345
        for y in 0..<144 {
            for x in 0..<192 {
                state = state &* 1_103_515_245 &+ 12345
                let grain = Int((state >> 16) % 7) - 3
                let inDisc = (x - 120) * (x - 120) + (y - 60) * (y - 60) < 900
                let base = inDisc ? (200, 120, 60) : (x * 255 / 191, y * 255 / 143, 128 + (x - y) / 4)
                let i = (y * 192 + x) * 4
                out[i] = UInt8(clamping: base.0 + grain)
                out[i + 1] = UInt8(clamping: base.1 + grain)
                out[i + 2] = UInt8(clamping: base.2 + grain)
                out[i + 3] = 255
            }
        }
    }

    /// 192×144, transparent, with a red disc and a half-transparent blue bar: 3 colours.
    static let graphic: Bitmap = Bitmap(width: 192, height: 144) { out in
        for y in 0..<144 {
            for x in 0..<192 {
                let i = (y * 192 + x) * 4
                let colour: RGBA
                if (x - 70) * (x - 70) + (y - 70) * (y - 70) < 2500 {
                    colour = RGBA(r: 220, g: 30, b: 40)
                } else if (100..<180).contains(x), (90..<120).contains(y) {
                    colour = RGBA(r: 20, g: 60, b: 200, a: 128)
                } else {
                    colour = .clear
                }
                out[i] = colour.r; out[i + 1] = colour.g; out[i + 2] = colour.b; out[i + 3] = colour.a
            }
        }
    }

    private func withPictures(_ adjust: @escaping @Sendable (inout ServerConfiguration) -> Void = { _ in },
                              _ body: @escaping @Sendable (ServerHarness, _ photo: String, _ graphic: String) async throws -> Void) async throws {
        let coders = CodersManager()
        let photo = Array(try coders.encode(Image(bitmap: Self.photo), as: .png, options: .default))
        let graphic = Array(try coders.encode(Image(bitmap: Self.graphic), as: .png, options: .default))
        try await withTestOrigin { origin in
            origin.setRoute("/photo.png", .data(photo, contentType: "image/png"))
            origin.setRoute("/graphic.png", .data(graphic, contentType: "image/png"))
            let configuration = loopbackServerConfiguration {
                $0.autoQualityTarget = Self.target
                $0.autoQualityMin = 30
                $0.autoQualityMax = 90
                $0.bestFormatMaxEncodes = 100
                adjust(&$0)
            }
            try await withImageServer(configuration) { server in
                try await body(server, "rs:fit:96:72/plain/http://127.0.0.1:\(origin.port)/photo.png",
                               "rs:fit:96:72/plain/http://127.0.0.1:\(origin.port)/graphic.png")
            }
        }
    }

    /// The SSIM of `reply`'s image against `reference` as the search measures it: over white, and
    /// over black too when the reference has alpha, the lower.
    private func similarity(_ server: ServerHarness, _ reply: ServerReply, to reference: Bitmap) throws -> Double {
        let image = try server.decode(reply).bitmap
        let backgrounds: [RGBA] = reference.hasAlpha ? [.white, .black] : [.white]
        return try backgrounds.map { try #require(StructuralSimilarity.index(image, reference, over: $0)) }.min()!
    }

    /// The smallest encoding of `format` reaching the target found by a binary search over
    /// quality 30–90 through fixed-quality URLs, as the server documents its search; nil when
    /// quality 90 misses it.
    private func smallestMeetingTarget(_ server: ServerHarness, _ path: String, _ format: String,
                                       reference: Bitmap) async throws -> Int? {
        func measured(_ quality: Int) async throws -> (size: Int, passes: Bool) {
            let reply = try await server.get("/insecure/q:\(quality)/\(path)@\(format)")
            try #require(reply.status == 200, "\(format) q\(quality)")
            return (reply.body.count, try similarity(server, reply, to: reference) >= Self.target)
        }
        var best = try await measured(90)
        guard best.passes else { return nil }
        var low = 30, high = 90
        while low < high {
            let quality = (low + high) / 2
            let candidate = try await measured(quality)
            if candidate.passes {
                high = quality
                best = candidate
            } else {
                low = quality + 1
            }
        }
        return best.size
    }

    @Test func bestReachesTheTargetAndIsTheSmallest() async throws {
        try await withPictures { server, photo, graphic in
            for (path, formats) in [(photo, ["jpg", "webp", "avif"]), (graphic, ["webp", "avif"])] {
                let reference = try server.decode(try await server.get("/insecure/\(path)@png")).bitmap
                let reply = try await server.get("/insecure/f:best/\(path)", headers: [("Accept", Self.chrome)])
                #expect(reply.status == 200)
                #expect(reply.header("Vary") == "Accept")
                let similarity = try similarity(server, reply, to: reference)
                #expect(similarity >= Self.target, "\(path): \(reply.header("Content-Type") ?? "?") at SSIM \(similarity)")
                for format in formats {
                    if let size = try await smallestMeetingTarget(server, path, format, reference: reference) {
                        #expect(reply.body.count <= size, "\(path): best \(reply.body.count) B, \(format) \(size) B")
                    }
                }
                let png = try await server.get("/insecure/\(path)@png")
                #expect(reply.body.count <= png.body.count)
            }
            // The flat graphic keeps its alpha: no JPEG, whatever wins.
            let flat = try await server.get("/insecure/f:best/\(graphic)", headers: [("Accept", Self.chrome)])
            #expect(flat.header("Content-Type") != "image/jpeg")
            #expect(try server.decode(flat).bitmap.hasAlpha)
        }
    }

    /// `format:best`, `f:best` and the `.best` extension are one result: the second and third
    /// come from memory.
    @Test func spellingsShareOneResultMadeOnce() async throws {
        try await withPictures { server, photo, _ in
            let first = try await server.get("/insecure/format:best/\(photo)", headers: [("Accept", Self.chrome)])
            #expect(first.status == 200)
            let made = server.server.metrics.resultsByTier["made"]
            let encodes = server.server.metrics.bestFormatEncodeTotal
            #expect(encodes > 1)
            for path in ["/insecure/f:best/\(photo)", "/insecure/\(photo)@best"] {
                let again = try await server.get(path, headers: [("Accept", Self.chrome)])
                #expect(again.body == first.body, "\(path)")
                #expect(again.header("Content-Type") == first.header("Content-Type"))
            }
            #expect(server.server.metrics.resultsByTier["made"] == made)
            #expect(server.server.metrics.resultsByTier["memory"] == 2)
            #expect(server.server.metrics.bestFormatEncodeTotal == encodes, "no search ran again")
        }
    }

    /// An `Accept` without AVIF and WebP leaves JPEG and PNG: the photo is a JPEG, the graphic
    /// with alpha a PNG; each `Accept` has a result of its own.
    @Test func acceptWithoutAVIFAndWebPExcludesThem() async throws {
        try await withPictures { server, photo, graphic in
            let plain = "image/png,image/*;q=0.8,*/*;q=0.5"
            let jpeg = try await server.get("/insecure/f:best/\(photo)", headers: [("Accept", plain)])
            #expect(jpeg.header("Content-Type") == "image/jpeg")
            #expect(jpeg.header("Vary") == "Accept")
            let png = try await server.get("/insecure/f:best/\(graphic)", headers: [("Accept", plain)])
            #expect(png.header("Content-Type") == "image/png")
            let none = try await server.get("/insecure/f:best/\(photo)")
            #expect(none.header("Content-Type") == "image/jpeg")
            // WebP alone: never AVIF.
            let webpOnly = try await server.get("/insecure/f:best/\(photo)", headers: [("Accept", "image/webp,*/*")])
            #expect(["image/webp", "image/jpeg"].contains(webpOnly.header("Content-Type")))
            // No Accept and one naming neither share the plain result; every other Accept has its own.
            let chrome = try await server.get("/insecure/f:best/\(photo)", headers: [("Accept", Self.chrome)])
            #expect(chrome.status == 200)
            #expect(server.server.metrics.resultsByTier["memory"] == 1)
        }
    }

    /// JPEG XL is a candidate only when `Accept` names it: then the answer is a JPEG XL, a JPEG or
    /// (when neither reaches the target) a PNG, never AVIF or WebP, and a result of its own.
    @Test func jpegXLOnlyWhenAccepted() async throws {
        try await withPictures { server, photo, _ in
            let reference = try server.decode(try await server.get("/insecure/\(photo)@png")).bitmap
            let reply = try await server.get("/insecure/f:best/\(photo)", headers: [("Accept", "image/jxl,image/*")])
            #expect(["image/jxl", "image/jpeg", "image/png"].contains(reply.header("Content-Type")))
            let measured = try similarity(server, reply, to: reference)
            #expect(measured >= Self.target, "\(reply.header("Content-Type") ?? "?") \(reply.body.count) B at SSIM \(measured)")
            let chrome = try await server.get("/insecure/f:best/\(photo)", headers: [("Accept", Self.chrome)])
            #expect(chrome.header("Content-Type") != "image/jxl")
            #expect(server.server.metrics.resultsByTier["memory"] == 0)
        }
    }

    /// `--best-format-max-encodes` bounds a search: 4 encodes for three lossy formats is one each,
    /// at the highest quality, and one kept for the lossless answer; the answer reaches the target.
    @Test func encodesPerResultAreCapped() async throws {
        try await withPictures({ $0.bestFormatMaxEncodes = 4 }) { server, photo, _ in
            let reference = try server.decode(try await server.get("/insecure/\(photo)@png")).bitmap
            let reply = try await server.get("/insecure/f:best/\(photo)", headers: [("Accept", Self.chrome)])
            #expect(reply.status == 200)
            #expect((3...4).contains(server.server.metrics.bestFormatEncodeTotal))
            #expect(try similarity(server, reply, to: reference) >= Self.target)
        }
    }

    /// A target no lossy encoding reaches (1: identical) gets a lossless answer, never one below
    /// it: lossless WebP when accepted, else PNG.
    @Test func anUnreachedTargetGetsALosslessAnswer() async throws {
        try await withPictures({ $0.autoQualityTarget = 1 }) { server, photo, graphic in
            for path in [photo, graphic] {
                let reference = try server.decode(try await server.get("/insecure/\(path)@png")).bitmap
                let webp = try await server.get("/insecure/f:best/\(path)", headers: [("Accept", Self.chrome)])
                #expect(webp.header("Content-Type") == "image/webp")
                #expect(try similarity(server, webp, to: reference) == 1)
                let png = try await server.get("/insecure/f:best/\(path)", headers: [("Accept", "image/*")])
                #expect(png.header("Content-Type") == "image/png")
                #expect(try similarity(server, png, to: reference) == 1)
            }
        }
    }

    /// A result over `--best-format-max-resolution` is encoded once, in AVIF when accepted.
    @Test func largeResultsAreNotSearched() async throws {
        try await withPictures({ $0.bestFormatMaxResolution = 96 * 72 - 1 }) { server, photo, _ in
            let reply = try await server.get("/insecure/f:best/\(photo)", headers: [("Accept", Self.chrome)])
            #expect(reply.header("Content-Type") == "image/avif")
            #expect(server.server.metrics.bestFormatEncodeTotal == 1)
        }
    }

    /// `max_bytes` bounds a `format:best` answer: one over the budget is encoded again in the
    /// format chosen, at the highest lower quality that fits.
    @Test func maxBytesBoundsTheChosenEncoding() async throws {
        try await withPictures { server, photo, _ in
            let free = try await server.get("/insecure/f:best/\(photo)", headers: [("Accept", "image/*")])
            #expect(free.header("Content-Type") == "image/jpeg")
            let budget = free.body.count * 3 / 4
            let bounded = try await server.get("/insecure/f:best/mb:\(budget)/\(photo)", headers: [("Accept", "image/*")])
            #expect(bounded.header("Content-Type") == "image/jpeg")
            #expect(bounded.body.count <= budget, "\(bounded.body.count) B for a budget of \(budget)")
            #expect(try server.decode(bounded).pixelSize == PixelSize(width: 96, height: 72))
        }
    }

    /// `format:best` keeps the source's Copyright and Artist (imgproxy's `keep_copyright` default)
    /// in a JPEG, PNG or WebP answer.
    @Test func theCopyrightFieldsAreKept() async throws {
        let plain = try JPEGFixtures.compress(Self.photo.pixels, width: 192, height: 144)
        let source = try EmbeddedMetadata(exif: ServerResultMetadataTests.sourceEXIF).embed(in: plain, format: .jpeg)
        try await withTestOrigin { origin in
            origin.setRoute("/e.jpg", .data(Array(source), contentType: "image/jpeg"))
            try await withImageServer(loopbackServerConfiguration()) { server in
                let path = "/insecure/rs:fit:96:72/f:best/plain/http://127.0.0.1:\(origin.port)/e.jpg"
                let kept = try await server.get(path, headers: [("Accept", "image/webp,image/*")])
                #expect(["image/jpeg", "image/webp", "image/png"].contains(kept.header("Content-Type")))
                let block = try #require(CopyrightEXIF.exifBlock(in: kept.body))
                #expect(CopyrightEXIF(tiff: block) == CopyrightEXIF(artist: Array("Ann".utf8), copyright: Array("(c) 2026 Ann".utf8)))
                let dropped = try await server.get(path.replacingOccurrences(of: "f:best", with: "f:best/kcr:0"),
                                                   headers: [("Accept", "image/webp,image/*")])
                #expect(CopyrightEXIF.exifBlock(in: dropped.body) == nil)
            }
        }
    }

    @Test func settingsOutOfRangeAreRefused() throws {
        for adjust: (inout ServerConfiguration) -> Void in [
            { $0.autoQualityTarget = 0 }, { $0.autoQualityTarget = 1.01 }, { $0.autoQualityTarget = .nan },
            { $0.autoQualityMin = 0 }, { $0.autoQualityMax = 101 }, { $0.autoQualityMin = 80; $0.autoQualityMax = 70 },
            { $0.bestFormatMaxEncodes = 1 }, { $0.bestFormatMaxEncodes = 101 }, { $0.bestFormatMaxResolution = -1 },
        ] {
            var configuration = ServerConfiguration()
            adjust(&configuration)
            #expect(throws: URLConfigurationError.self) { try configuration.validate() }
        }
    }
}
