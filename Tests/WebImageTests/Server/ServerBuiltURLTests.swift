import Foundation
import Testing
@testable import WebImage
@testable import WebImageServer

/// URLs built by the library's ``ImageServerURL`` are accepted by `webimage serve` with signing
/// on: plain and base64 sources, extensions, presets, a truncated signature and `dpr`.
@Suite("Server: URLs built by ImageServerURL")
struct ServerBuiltURLTests {
    static let key = "943b421c9eb07c830af81030552c86009268de4e532ba2ee2eab8247c6da0881"
    static let salt = "520f986b998545b4785e0defbc4f3c1203f22de2374a3d53cb7a7fe9fea309c5"
    let photo: [UInt8] = Array(try! JPEGFixtures.encode(TestBitmaps.gradient(width: 400, height: 300)))

    @Test func signedBuiltURLsAreServed() async throws {
        try await withTestOrigin { origin in
            origin.setRoute("/photo.jpg", .data(photo, contentType: "image/jpeg"))
            let configuration = loopbackServerConfiguration {
                $0.keys = [Self.key]; $0.salts = [Self.salt]; $0.presets = ["thumb": "rs:fill:50:50"]
            }
            try await withImageServer(configuration) { server in
                let signer = try ImageServerSigner(key: Self.key, salt: Self.salt)
                let source = "http://127.0.0.1:\(origin.port)/photo.jpg"

                let plain = try ImageServerURL(source: source).resize(.fit, width: 200, height: 200)
                let fit = try await server.get(try plain.signedPath(with: signer))
                #expect(fit.status == 200)
                #expect(try server.decode(fit).pixelSize == PixelSize(width: 200, height: 150))

                let base64 = try ImageServerURL(source: source, sourceEncoding: .base64(chunkLength: 10),
                                                fileExtension: "webp").preset("thumb")
                let preset = try await server.get(try base64.signedPath(with: signer))
                #expect(preset.status == 200)
                #expect(preset.header("Content-Type") == "image/webp")
                #expect(try server.decode(preset).pixelSize == PixelSize(width: 50, height: 50))

                let scaled = try ImageServerURL(source: source).sized(forPoints: 60, 0, scale: 2)
                    .choosingFormat(accept: "image/png", preferring: ["avif", "png"])
                let dpr = try await server.get(try scaled.signedPath(with: signer))
                #expect(dpr.status == 200)
                #expect(dpr.header("Content-Type") == "image/png")
                #expect(try server.decode(dpr).pixelSize == PixelSize(width: 120, height: 90))

                // The same URL unsigned, or signed with another key, is refused.
                #expect(try await server.get(try plain.signedPath(with: nil)).status == 403)
                let other = try ImageServerSigner(key: "00ff", salt: Self.salt)
                #expect(try await server.get(try plain.signedPath(with: other)).status == 403)
            }
        }
    }

    @Test func aTruncatedSignatureMatchesTheServersSize() async throws {
        try await withTestOrigin { origin in
            origin.setRoute("/photo.jpg", .data(photo, contentType: "image/jpeg"))
            let configuration = loopbackServerConfiguration {
                $0.keys = [Self.key]; $0.salts = [Self.salt]; $0.signatureSize = 8
            }
            try await withImageServer(configuration) { server in
                let url = try ImageServerURL(source: "http://127.0.0.1:\(origin.port)/photo.jpg")
                    .resize(width: 100, height: 0).quality(70)
                let short = try ImageServerSigner(key: Self.key, salt: Self.salt, signatureSize: 8)
                let reply = try await server.get(try url.signedPath(with: short))
                #expect(reply.status == 200)
                #expect(try server.decode(reply).pixelSize == PixelSize(width: 100, height: 75))
                let full = try ImageServerSigner(key: Self.key, salt: Self.salt)
                #expect(try await server.get(try url.signedPath(with: full)).status == 403)
            }
        }
    }
}
