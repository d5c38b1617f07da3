import Foundation
import NIOHTTP1
import Testing
@testable import WebImage
@testable import WebImageRedis
@testable import WebImageServer

/// `POST /purge/SIGNATURE/plain/SOURCE`: signed like image URLs, refused without a key or with a
/// wrong signature; a purge drops the source and its results on every instance sharing the Redis.
@Suite("Server: purge")
struct ServerPurgeTests {
    let wide: [UInt8] = Array(try! JPEGFixtures.encode(TestBitmaps.gradient(width: 320, height: 240)))
    let narrow: [UInt8] = Array(try! JPEGFixtures.encode(TestBitmaps.gradient(width: 160, height: 120)))
    static let key = "943b421c9eb07c830af81030552c86009268de4e532ba2ee2eab8247c6da0881"
    static let salt = "520f986b998545b4785e0defbc4f3c1203f22de2374a3d53cb7a7fe9fea309c5"
    let signer = try! URLSigner(keys: [Self.key], salts: [Self.salt])

    private func signed(_ clock: Watched<Int64>, _ adjust: (inout ServerConfiguration) -> Void = { _ in })
        -> ServerConfiguration {
        loopbackServerConfiguration {
            $0.keys = [Self.key]
            $0.salts = [Self.salt]
            $0.now = { clock.value }
            adjust(&$0)
        }
    }

    private static func with(_ configuration: ServerConfiguration, cache: URL) -> ServerConfiguration {
        var configuration = configuration
        configuration.cacheDirectory = cache
        return configuration
    }

    private func post(_ server: ServerHarness, _ path: String) async throws -> ServerReply {
        try await server.get(path, method: .POST)
    }

    @Test func aPurgeWithoutAKeyOrWithAWrongSignatureIsRefusedAndDropsNothing() async throws {
        try await withTestOrigin { origin in
            origin.setRoute("/k.jpg", .data(wide, contentType: "image/jpeg"))
            let source = "http://127.0.0.1:\(origin.port)/k.jpg"
            let clock = Watched<Int64>(1_000_000)
            try await withImageServer(loopbackServerConfiguration()) { server in
                let refused = try await post(server, "/purge/insecure/plain/\(source)")
                #expect(refused.status == 403)
                #expect(refused.error?.name == "purge_not_allowed")
            }
            try await withImageServer(signed(clock)) { server in
                let path = signer.signedPath("/w:50/plain/\(source)@png")
                #expect(try await server.get(path).status == 200)
                let unsigned = try await post(server, "/purge/insecure/plain/\(source)")
                #expect(unsigned.status == 403)
                #expect(unsigned.error?.name == "invalid_signature")
                // A signature of another source, and an image URL's signature, sign other paths.
                let other = signer.signature(for: "/plain/http://127.0.0.1:\(origin.port)/other.jpg")
                #expect(try await post(server, "/purge/\(other)/plain/\(source)").status == 403)
                #expect(try await post(server, "/purge" + path).status == 400, "a purge names a source, no options")
                // Nothing was dropped: the result is still served from memory, the source not fetched again.
                #expect(try await server.get(path).status == 200)
                #expect(server.server.metrics.resultsByTier["memory"] == 1)
                #expect(origin.requestCount("/k.jpg") == 1)
            }
        }
    }

    @Test(.enabled(if: RedisTestServer.isInstalled, "redis-server is not installed (scripts/install-deps installs it)"))
    func aPurgeOnOneOfTwoInstancesSharingRedisMakesBothServeTheNewImage() async throws {
        try await withRedisServer { redis in
            try await withTestOrigin { origin in
                var first = TestOriginRoute.data(wide, contentType: "image/jpeg")
                first.etag = "\"a\""
                origin.setRoute("/p.jpg", first)
                let clock = Watched<Int64>(5_000_000)
                let settings = signed(clock) {
                    $0.sharedCache = redis.configuration()
                    $0.sharedCacheTTL = 300
                }
                let (one, two) = (DiskCacheSandbox(), DiskCacheSandbox())
                defer {
                    one.remove()
                    two.remove()
                }
                let (withOne, withTwo) = (Self.with(settings, cache: one.root), Self.with(settings, cache: two.root))
                let source = "http://127.0.0.1:\(origin.port)/p.jpg"
                let path = signer.signedPath("/rs:fit:400:400/plain/\(source)@png")
                try await withImageServer(withOne) { a in
                    try await withImageServer(withTwo) { b in
                        let fromA = try await a.get(path)
                        #expect(try a.decode(fromA).pixelSize.width == 320)
                        await a.server.pipeline.shared!.client.flush()
                        let fromB = try await b.get(path)
                        #expect(fromB.body == fromA.body)
                        #expect(origin.requestCount("/p.jpg") == 1)
                        let oldKey = try a.resultKey(path, source: source)
                        for server in [a, b] {
                            #expect(server.server.pipeline.storedResults?.containsData(forKey: oldKey) == true)
                        }
                        #expect(await a.server.pipeline.shared!.results.contains(key: oldKey))

                        // The origin's image is replaced (fresh for a day: no revalidation would see it).
                        var second = TestOriginRoute.data(narrow, contentType: "image/jpeg")
                        second.etag = "\"b\""
                        origin.setRoute("/p.jpg", second)
                        let purged = try await post(a, "/purge" + signer.signedPath("/plain/\(source)"))
                        #expect(purged.status == 200)
                        let answer = try JSONSerialization.jsonObject(with: purged.body) as? [String: String]
                        #expect(answer?["purged"] == source)
                        // The old result left A's disk and the shared tier with the purge.
                        #expect(a.server.pipeline.storedResults?.containsData(forKey: oldKey) == false)
                        #expect(await !a.server.pipeline.shared!.results.contains(key: oldKey))

                        let newA = try await a.get(path)
                        #expect(try a.decode(newA).pixelSize.width == 160, "A serves the new image")
                        #expect(newA.header("ETag") != fromA.header("ETag"))
                        await a.server.pipeline.shared!.client.flush()
                        // B checks the shared record at least every --shared-source-check (1 s).
                        clock.update { $0 += 1 }
                        let newB = try await b.get(path)
                        #expect(try b.decode(newB).pixelSize.width == 160, "B serves the new image")
                        #expect(newB.header("ETag") == newA.header("ETag"))
                        #expect(b.server.pipeline.storedResults?.containsData(forKey: oldKey) == false,
                                "B dropped its own copy on learning of the purge")
                        #expect(origin.requestCount("/p.jpg") == 2, "the new image was fetched once, by A")
                    }
                }
            }
        }
    }

    @Test func thePurgeCommandSignsAndSendsThePurgeOfASourceWithCharactersToEscape() async throws {
        let executable = try #require(webimageExecutable(), "build the webimage executable (swift build) first")
        try await withTestOrigin { origin in
            // A path with a space (sent as %20) and an @, which a plain source must escape.
            origin.setRoute("/a%20b@2x.jpg", .data(wide, contentType: "image/jpeg"))
            let source = "http://127.0.0.1:\(origin.port)/a%20b@2x.jpg"
            let clock = Watched<Int64>(7_000_000)
            try await withImageServer(signed(clock)) { server in
                let path = signer.signedPath("/w:60/plain/http://127.0.0.1:\(origin.port)/a%2520b%402x.jpg@png")
                #expect(try await server.get(path).status == 200)
                let child = try ChildProcess(executable.path,
                                             ["purge", source, "--server", "http://127.0.0.1:\(server.port)",
                                              "--key", Self.key, "--salt", Self.salt],
                                             stdout: .pipe)
                let termination = await offThePool { child.wait() }
                let printed = String(decoding: child.readStdout(), as: UTF8.self)
                #expect(termination.status == 0, "\(printed)")
                #expect(printed.contains(source))
                #expect(try await server.get(path).status == 200)
                #expect(origin.requestCount("/a%20b@2x.jpg") == 2, "purged: fetched again")
            }
        }
    }
}
