import Foundation
import Testing
@testable import WebImage
@testable import WebImageServer

/// ``ImageServerEndpoint``: an ``ImageManager`` loads the server's signed URLs and keeps them
/// cached under keys without the signature, so a rotated key still finds them.
@Suite("Image manager through an image server endpoint")
struct ServerEndpointLoadTests {
    static let oldKey = "943b421c9eb07c830af81030552c86009268de4e532ba2ee2eab8247c6da0881"
    static let newKey = "00112233445566778899aabbccddeeff"
    static let salt = "520f986b998545b4785e0defbc4f3c1203f22de2374a3d53cb7a7fe9fea309c5"

    @Test func cacheKeysLeaveOutTheSignature() throws {
        let base = URL(string: "https://img.example.com/prefix/")!
        let old = ImageServerEndpoint(base: base, signer: try ImageServerSigner(key: Self.oldKey, salt: Self.salt))
        let new = ImageServerEndpoint(base: base, signer: try ImageServerSigner(key: Self.newKey, salt: Self.salt))
        let request = try ImageServerURL(source: "https://example.com/cat.jpg").resize(width: 100, height: 0)
        let oldURL = try old.url(for: request), newURL = try new.url(for: request)
        #expect(oldURL != newURL)
        let key = old.cacheKeyFilter.key(for: oldURL)
        #expect(key == "https://img.example.com/prefix/-/rs:fit:100:0/plain/https://example.com/cat.jpg")
        #expect(new.cacheKeyFilter.key(for: newURL) == key)
        let other = try old.url(for: try request.quality(50))
        #expect(old.cacheKeyFilter.key(for: other) != key)
        let elsewhere = URL(string: "https://cdn.example.com/a.jpg")!
        #expect(old.cacheKeyFilter.key(for: elsewhere) == elsewhere.absoluteString)
    }

    @Test func aRotatedKeyFindsTheCachedImage() async throws {
        let photo = Array(try JPEGFixtures.encode(TestBitmaps.gradient(width: 400, height: 300)))
        try await withManager { harness in
            harness.origin.setRoute("/photo.jpg", .data(photo, contentType: "image/jpeg"))
            let configuration = loopbackServerConfiguration {
                $0.keys = [Self.newKey, Self.oldKey]; $0.salts = [Self.salt, Self.salt]
            }
            try await withImageServer(configuration) { server in
                let base = URL(string: "http://127.0.0.1:\(server.port)")!
                let old = ImageServerEndpoint(base: base, signer: try ImageServerSigner(key: Self.oldKey, salt: Self.salt))
                let new = ImageServerEndpoint(base: base, signer: try ImageServerSigner(key: Self.newKey, salt: Self.salt))
                let request = try ImageServerURL(source: "http://127.0.0.1:\(harness.origin.port)/photo.jpg")
                    .sized(forPoints: 100, 0, scale: 2)
                let loaded = try await harness.manager.image(for: try old.url(for: request), context: old.context())
                #expect(loaded.image?.pixelSize == PixelSize(width: 200, height: 150))
                let cached = try await harness.manager.image(for: try new.url(for: request), options: [.fromCacheOnly],
                                                             context: new.context())
                #expect(cached.image?.pixelSize == PixelSize(width: 200, height: 150))
                #expect(cached.cacheType != .none)
            }
        }
    }
}
