import AvatarsApp
import Foundation
import Testing
import Vapor
import VaporTesting
import WebImage

/// The avatar app over real HTTP on loopback, fetching from ``AvatarOrigin``, also on loopback:
/// sizes and formats checked on the decoded answers, the caches on `X-Avatar-Cache` and on the
/// origin's request counts.
@Suite struct AvatarsAppTests {
    let cacheDirectory: URL

    init() {
        cacheDirectory = FileManager.default.temporaryDirectory.appendingPathComponent("avatars-test-\(UUID().uuidString)")
    }

    struct Reply {
        let status: HTTPStatus
        let headers: HTTPHeaders
        let body: Data

        func image() throws -> Image { try CodersManager.shared.decode(body, options: .default) }
    }

    /// Runs `body` with a GET function against the app started on a loopback port with an
    /// avatar store at `origin`; `allowLoopback` lets the safe-fetch guard through to it.
    private func withAvatarApp(origin: AvatarOrigin, allowLoopback: Bool = true,
                               _ body: (_ get: (String, HTTPHeaders) async throws -> Reply) async throws -> Void) async throws {
        var configuration = AvatarConfiguration(origin: origin.url, cacheDirectory: cacheDirectory)
        if allowLoopback { configuration.allowedPrivateHosts = ["127.0.0.1"] }
        try await withApp(configure: { app in try configure(app, avatars: configuration) }) { app in
            try await app.server.start(address: .hostname("127.0.0.1", port: 0))
            let port = try #require(app.http.server.shared.localAddress?.port)
            do {
                try await body { path, headers in
                    let response = try await app.client.get(URI(string: "http://127.0.0.1:\(port)\(path)"), headers: headers)
                    return Reply(status: response.status, headers: response.headers,
                                 body: response.body.map { Data($0.readableBytesView) } ?? Data())
                }
            } catch {
                await app.server.shutdown()
                throw error
            }
            await app.server.shutdown()
        }
    }

    @Test func anAvatarIsThumbnailedCachedAndServedInTheAcceptedFormat() async throws {
        defer { try? FileManager.default.removeItem(at: cacheDirectory) }
        let origin = try await AvatarOrigin.start()
        do {
            try await withAvatarApp(origin: origin) { get in
                let first = try await get("/avatars/alice?size=64", ["Accept": "image/webp,image/*"])
                #expect(first.status == .ok)
                #expect(first.headers.first(name: .contentType) == "image/webp")
                #expect(first.headers.first(name: "X-Avatar-Cache") == "miss")
                let image = try first.image()
                #expect(image.format == .webp)
                #expect(image.pixelSize == PixelSize(width: 64, height: 64), "the 200x150 PNG cropped square")

                let again = try await get("/avatars/alice?size=64", ["Accept": "image/jpeg"])
                #expect(again.status == .ok)
                #expect(again.headers.first(name: .contentType) == "image/jpeg")
                #expect(again.headers.first(name: "X-Avatar-Cache") == "memory")
                #expect(try again.image().format == .jpeg)
                #expect(try again.image().pixelSize == PixelSize(width: 64, height: 64))

                let bob = try await get("/avatars/bob", [:])
                #expect(bob.status == .ok)
                #expect(try bob.image().pixelSize == PixelSize(width: 128, height: 128), "the default size")
            }
            #expect(origin.requests("/alice") == 1)

            // A new app over the same cache directory: an empty memory cache, the thumbnail on disk.
            try await withAvatarApp(origin: origin) { get in
                let restarted = try await get("/avatars/alice?size=64", ["Accept": "image/webp"])
                #expect(restarted.status == .ok)
                #expect(restarted.headers.first(name: "X-Avatar-Cache") == "disk")
                #expect(try restarted.image().pixelSize == PixelSize(width: 64, height: 64))
            }
            #expect(origin.requests("/alice") == 1, "the disk cache answered")
        } catch {
            try await origin.stop()
            throw error
        }
        try await origin.stop()
    }

    @Test func badRequestsAndMissingAvatarsGetTheirStatuses() async throws {
        defer { try? FileManager.default.removeItem(at: cacheDirectory) }
        let origin = try await AvatarOrigin.start()
        do {
            try await withAvatarApp(origin: origin) { get in
                let reply1 = try await get("/avatars/nobody", [:])
                #expect(reply1.status == .notFound)
                #expect(origin.requests("/nobody") == 1)
                let reply2 = try await get("/avatars/alice?size=0", [:])
                #expect(reply2.status == .badRequest)
                let reply3 = try await get("/avatars/alice?size=513", [:])
                #expect(reply3.status == .badRequest)
                let reply4 = try await get("/avatars/alice?size=99999999999999999999", [:])
                #expect(reply4.status == .badRequest)
                let reply5 = try await get("/avatars/al%20ice", [:])
                #expect(reply5.status == .badRequest)
            }
            #expect(origin.requests("/alice") == 0, "refused before any fetch")
        } catch {
            try await origin.stop()
            throw error
        }
        try await origin.stop()
    }

    @Test func theGuardRefusesALoopbackStoreThatIsNotAllowed() async throws {
        defer { try? FileManager.default.removeItem(at: cacheDirectory) }
        let origin = try await AvatarOrigin.start()
        do {
            try await withAvatarApp(origin: origin, allowLoopback: false) { get in
                let reply6 = try await get("/avatars/alice", [:])
                #expect(reply6.status == .badGateway)
            }
            #expect(origin.requests("/alice") == 0, "nothing connected to the store")
        } catch {
            try await origin.stop()
            throw error
        }
        try await origin.stop()
    }
}
