import Foundation
import Testing
@testable import WebImage
@testable import WebImageServer
@testable import WebImageCodecs

/// `keep_copyright` and `strip_color_profile` end to end: sources with EXIF or a Display P3
/// profile served from the loopback origin; the results' containers and pixels are checked.
@Suite("Server: keep_copyright, strip_color_profile")
struct ServerResultMetadataTests {
    /// A big-endian TIFF with IFD0's Make ("Canon"), Artist ("Ann") and Copyright ("(c) 2026 Ann").
    static let sourceEXIF: Data = {
        let make = Array("Canon\0".utf8), artist = Array("Ann\0".utf8), copyright = Array("(c) 2026 Ann\0".utf8)
        func be16(_ v: Int) -> [UInt8] { [UInt8(v >> 8), UInt8(v & 0xFF)] }
        func be32(_ v: Int) -> [UInt8] { be16(v >> 16) + be16(v & 0xFFFF) }
        let valuesAt = 8 + 2 + 3 * 12 + 4
        var out: [UInt8] = [0x4D, 0x4D, 0, 42] + be32(8) + be16(3)
        out += be16(0x010F) + be16(2) + be32(make.count) + be32(valuesAt)
        out += be16(0x013B) + be16(2) + be32(artist.count) + artist
        out += be16(0x8298) + be16(2) + be32(copyright.count) + be32(valuesAt + make.count)
        return Data(out + be32(0) + make + copyright)
    }()

    static let gray = RGBA(r: 120, g: 130, b: 140)

    private func withSources(_ sources: [String: Data], _ adjust: @escaping @Sendable (inout ServerConfiguration) -> Void = { _ in },
                             _ body: @escaping @Sendable (ServerHarness, _ sources: [String: String]) async throws -> Void) async throws {
        try await withTestOrigin { origin in
            var paths: [String: String] = [:]
            for (name, data) in sources {
                origin.setRoute("/\(name)", .data(Array(data), contentType: "application/octet-stream"))
                paths[name] = "plain/http://127.0.0.1:\(origin.port)/\(name)"
            }
            try await withImageServer(loopbackServerConfiguration(adjust)) { [paths] server in
                try await body(server, paths)
            }
        }
    }

    private func body(_ server: ServerHarness, _ path: String, sourceLocation: SourceLocation = #_sourceLocation) async throws -> Data {
        let reply = try await server.get(path)
        try #require(reply.status == 200, "\(path): \(reply.status) \(String(decoding: reply.body, as: UTF8.self))",
                     sourceLocation: sourceLocation)
        return reply.body
    }

    private func exif(_ data: Data) -> [UInt8]? { CopyrightEXIF.exifBlock(in: data) }

    /// The source's Copyright and Artist are kept by default (imgproxy's default) in JPEG, PNG
    /// and WebP results, and nothing else of its EXIF; `kcr:0` keeps none.
    @Test func copyrightIsKeptAndTheRestDropped() async throws {
        let plain = try JPEGFixtures.compress(Bitmap(width: 16, height: 16, fill: Self.gray).pixels, width: 16, height: 16)
        let source = try EmbeddedMetadata(exif: Self.sourceEXIF).embed(in: plain, format: .jpeg)
        #expect(CopyrightEXIF(source: source) == CopyrightEXIF(artist: Array("Ann".utf8), copyright: Array("(c) 2026 Ann".utf8)))
        try await withSources(["e.jpg": source]) { server, sources in
            for format in ["jpg", "png", "webp"] {
                let kept = try await body(server, "/insecure/\(sources["e.jpg"]!)@\(format)")
                let block = try #require(exif(kept), "\(format)")
                #expect(CopyrightEXIF(tiff: block) == CopyrightEXIF(artist: Array("Ann".utf8), copyright: Array("(c) 2026 Ann".utf8)),
                        "\(format)")
                #expect(!Data(block).contains(Data("Canon".utf8)), "\(format)")
                #expect(try server.decode(ServerReply(status: 200, headers: [], body: kept)).pixelSize == PixelSize(width: 16, height: 16))
                let explicit = try await body(server, "/insecure/keep_copyright:1/\(sources["e.jpg"]!)@\(format)")
                #expect(exif(explicit) == block, "\(format)")
                let dropped = try await body(server, "/insecure/kcr:0/\(sources["e.jpg"]!)@\(format)")
                #expect(exif(dropped) == nil, "\(format)")
            }
            // Without stripping, the fields are kept whatever kcr says.
            let unstripped = try await body(server, "/insecure/sm:0/kcr:0/\(sources["e.jpg"]!)@jpg")
            #expect(exif(unstripped) != nil)
        }
    }

    /// The server's defaults (`--no-keep-copyright`, `--no-strip-color-profile`) apply to URLs
    /// without the options; `kcr:1` and `scp:1` override them.
    @Test func theServerDefaultsApplyUnlessTheURLSaysOtherwise() async throws {
        let plain = try JPEGFixtures.compress(Bitmap(width: 16, height: 16, fill: Self.gray).pixels, width: 16, height: 16)
        let sources = ["e.jpg": try EmbeddedMetadata(exif: Self.sourceEXIF).embed(in: plain, format: .jpeg),
                       "p3.png": ColorFixtures.taggedPNG()]
        try await withSources(sources, { $0.keepCopyright = false; $0.stripColorProfile = false }) { server, paths in
            #expect(exif(try await body(server, "/insecure/\(paths["e.jpg"]!)@jpg")) == nil)
            #expect(exif(try await body(server, "/insecure/kcr:1/\(paths["e.jpg"]!)@jpg")) != nil)
            let kept = try await body(server, "/insecure/\(paths["p3.png"]!)@png")
            #expect(try CodersManager().decode(kept, options: .default).colorProfile?.iccData == ColorFixtures.displayP3)
            let stripped = try await body(server, "/insecure/scp:1/\(paths["p3.png"]!)@png")
            #expect(try CodersManager().decode(stripped, options: .default).colorProfile == nil)
        }
    }

    /// A source without copyright fields gives a result without EXIF.
    @Test func noCopyrightNoEXIF() async throws {
        let plain = try JPEGFixtures.compress(Bitmap(width: 16, height: 16, fill: Self.gray).pixels, width: 16, height: 16)
        try await withSources(["p.jpg": plain]) { server, sources in
            let result = try await body(server, "/insecure/\(sources["p.jpg"]!)@jpg")
            #expect(result.count > 0 && exif(result) == nil)
        }
    }

    /// By default a P3 source is converted to sRGB and its profile dropped; with `scp:0` its
    /// pixels are left as they are and the P3 profile is embedded (JPEG, PNG, WebP), so a
    /// colour-managed decode shows the same colour as the converted result.
    @Test func stripColorProfileZeroKeepsTheP3Profile() async throws {
        let patch = ColorFixtures.patch
        let converted = try ColorFixtures.reference([patch.r, patch.g, patch.b], icc: ColorFixtures.displayP3)
        try await withSources(["p3.png": ColorFixtures.taggedPNG()]) { server, sources in
            let source = sources["p3.png"]!
            let defaultResult = try await body(server, "/insecure/\(source)@png")
            let byDefault = try CodersManager().decode(defaultResult, options: DecodeOptions(convertsToSRGB: false))
            #expect(byDefault.colorProfile == nil)
            #expect(ColorFixtures.near(byDefault.bitmap.pixel(x: 8, y: 8), converted))
            for (format, tolerance) in [("png", 0), ("jpg", 3), ("webp", 6)] {
                let kept = try await body(server, "/insecure/scp:0/\(source)@\(format)")
                let raw = try CodersManager().decode(kept, options: DecodeOptions(convertsToSRGB: false))
                #expect(raw.colorProfile?.iccData == ColorFixtures.displayP3, "\(format)")
                #expect(ColorFixtures.near(raw.bitmap.pixel(x: 8, y: 8), [patch.r, patch.g, patch.b], tolerance: tolerance),
                        "\(format): \(raw.bitmap.pixel(x: 8, y: 8))")
                let managed = try CodersManager().decode(kept, options: .default)
                #expect(ColorFixtures.near(managed.bitmap.pixel(x: 8, y: 8), converted, tolerance: tolerance + 2), "\(format)")
            }
            let explicit = try await body(server, "/insecure/strip_color_profile:1/\(source)@png")
            #expect(try CodersManager().decode(explicit, options: DecodeOptions(convertsToSRGB: false)).colorProfile == nil)
            // AVIF results carry no profile here: they are converted, as for formats without one.
            let avifResult = try await body(server, "/insecure/scp:0/\(source)@avif")
            let avif = try CodersManager().decode(avifResult, options: DecodeOptions(convertsToSRGB: false))
            #expect(ColorFixtures.near(avif.bitmap.pixel(x: 8, y: 8), converted, tolerance: 8))
        }
    }
}
