import AsyncHTTPClient
import Foundation
import Testing
@testable import WebImage
@testable import WebImageCodecs
@testable import WebImageLoading

/// The safe-fetch guard against the loopback origin, with a scripted resolver: names that are not
/// in any real DNS (`*.test`) reach the origin only at the address the guard checked, so a load
/// that arrives proves the pinned path, and one that is refused proves nothing was connected.
@Suite("Download safe-fetch guard")
struct DownloadGuardTests {
    let coder = TestImageCoder()
    let picture = TestImageCoder.encode(width: 6, height: 4)

    private func config(_ resolver: ScriptedResolver, _ policy: AddressPolicy = .denyPrivate) -> DownloaderConfig {
        var config = DownloaderConfig()
        config.addressPolicy = policy
        config.hostResolver = resolver
        return config
    }

    private func url(_ host: String, _ origin: TestOrigin, _ path: String) -> URL {
        URL(string: "http://\(host):\(origin.port)\(path)")!
    }

    /// The final result of one load.
    private func load(_ downloader: ImageDownloader, _ url: URL) async -> ImageLoadResult? {
        await downloader.finalResult(for: url, coder: coder)
    }

    @Test func aNameThatResolvesToLoopbackIsRefusedBeforeAnyConnection() async throws {
        let resolver = ScriptedResolver()
        resolver.set("images.test", ["127.0.0.1"])
        let refusals = DownloadTestMetrics.counter("webimage_download_guard_refusals_total", [("range", "loopback")])
        try await withOriginAndDownloader(config(resolver)) { origin, downloader in
            origin.setRoute("/a.img", .data(picture))
            let result = await load(downloader, url("images.test", origin, "/a.img"))
            let error = try #require(result?.error)
            #expect(error.code == .forbiddenAddress)
            #expect(error.url == url("images.test", origin, "/a.img"))
            #expect(error.message.contains("images.test:\(origin.port)") && error.message.contains("127.0.0.1"),
                    "\(error.message)")
            #expect(error.message.contains("loopback 127.0.0.0/8"), "\(error.message)")
            #expect(origin.stats.connectionsAccepted == 0 && origin.requestCount("/a.img") == 0)
            #expect(resolver.questions("images.test") == 1)
        }
        #expect(DownloadTestMetrics.counter("webimage_download_guard_refusals_total", [("range", "loopback")])
                >= refusals + 1)
    }

    @Test func anAllowedNetworkLoadsFromTheCheckedAddressWithoutAnotherLookup() async throws {
        let resolver = ScriptedResolver()
        resolver.set("images.test", ["127.0.0.1"])
        let policy = AddressPolicy(allowedNetworks: [IPNetwork("127.0.0.0/8")!])
        // A clock that stands still: the checked address's lifetime cannot pass between the two
        // loads, however slowly a loaded machine runs them.
        var config = config(resolver, policy)
        config.clock = TestClock(.manual)
        try await withOriginAndDownloader(config) { origin, downloader in
            origin.setRoute("/a.img", .data(picture))
            origin.setRoute("/b.img", .data(picture))
            let first = await load(downloader, url("images.test", origin, "/a.img"))
            #expect(first?.image?.pixelSize == PixelSize(width: 6, height: 4), "\(String(describing: first?.error))")
            #expect(first?.data == Data(picture))
            let second = await load(downloader, url("images.test", origin, "/b.img"))
            #expect(second?.image != nil)
            // The name never reached the system resolver: the scripted one answered once, and the
            // request still names the host (Host header; SNI for HTTPS).
            #expect(origin.requests("/a.img").first?.header("Host") == "images.test:\(origin.port)")
            #expect(origin.stats.connectionsAccepted == 1)
            #expect(resolver.questions("images.test") == 1)
            #expect(downloader.guarded?.pinnedCount == 1)
        }
    }

    /// A rebinding name server: the first answer is the (allowed) origin, every later one the
    /// metadata endpoint. New connections keep going to the checked answer without asking again;
    /// once the answer's lifetime has passed, the next lookup gets the metadata address: refused.
    @Test func aRebindingAnswerCannotMoveCheckedConnections() async throws {
        let resolver = ScriptedResolver()
        resolver.set("rebind.test", ["127.0.0.1"], ["169.254.169.254"])
        let clock = TestClock(.manual)
        var config = config(resolver, AddressPolicy(allowedNetworks: [IPNetwork("127.0.0.1/32")!]))
        config.clock = clock
        try await withOriginAndDownloader(config) { origin, downloader in
            var closing = TestOriginRoute.data(picture)
            closing.headers = [("Connection", "close")]
            origin.setRoute("/a.img", closing)
            let first = await load(downloader, url("rebind.test", origin, "/a.img"))
            #expect(first?.image != nil, "\(String(describing: first?.error))")
            // The origin closed that connection: the next load makes a new one, to the same address.
            await origin.wait("the first connection to close") { $0.connectionTimes.first?.closed != nil }
            let second = await load(downloader, url("rebind.test", origin, "/a.img"))
            #expect(second?.image != nil, "\(String(describing: second?.error))")
            #expect(origin.stats.connectionsAccepted == 2)
            #expect(resolver.questions("rebind.test") == 1, "no lookup for the second connection")
            clock.advance(by: .seconds(31))
            let third = await load(downloader, url("rebind.test", origin, "/a.img"))
            #expect(third?.error?.code == .forbiddenAddress)
            #expect(third?.error?.message.contains("169.254.169.254") == true)
            #expect(resolver.questions("rebind.test") == 2)
            #expect(origin.requestCount("/a.img") == 2 && origin.stats.connectionsAccepted == 2)
        }
    }

    /// Every address of an answer is checked, so when the first cannot be reached the next one is
    /// used, without another lookup.
    @Test func aFailedConnectionMovesOnToTheNextCheckedAddress() async throws {
        let resolver = ScriptedResolver()
        // The origin listens on 127.0.0.1 only: 127.0.0.2 refuses the connection.
        resolver.set("two.test", ["127.0.0.2", "127.0.0.1"])
        let policy = AddressPolicy(allowedNetworks: [IPNetwork("127.0.0.0/8")!])
        // A clock that stands still: the checked answer's lifetime cannot pass between the loads.
        var config = config(resolver, policy)
        config.clock = TestClock(.manual)
        try await withOriginAndDownloader(config) { origin, downloader in
            origin.setRoute("/a.img", .data(picture))
            let first = await load(downloader, url("two.test", origin, "/a.img"))
            #expect(first?.error?.code == .connectionFailed)
            let second = await load(downloader, url("two.test", origin, "/a.img"))
            #expect(second?.image != nil, "\(String(describing: second?.error))")
            #expect(resolver.questions("two.test") == 1)
        }
    }

    @Test func aNameWithOnePublicAndOnePrivateAddressIsRefused() async throws {
        let resolver = ScriptedResolver()
        resolver.set("mixed.test", ["93.184.216.34", "10.0.0.1"])
        resolver.set("mixed6.test", ["2606:4700::1111", "::ffff:192.168.1.1"])
        try await withOriginAndDownloader(config(resolver)) { origin, downloader in
            let mixed = await load(downloader, url("mixed.test", origin, "/a.img"))
            #expect(mixed?.error?.code == .forbiddenAddress)
            #expect(mixed?.error?.message.contains("93.184.216.34, 10.0.0.1") == true, "the whole answer")
            #expect(mixed?.error?.message.contains("10.0.0.1 is in privateUse 10.0.0.0/8") == true,
                    "\(String(describing: mixed?.error?.message))")
            let mapped = await load(downloader, url("mixed6.test", origin, "/a.img"))
            #expect(mapped?.error?.code == .forbiddenAddress)
            #expect(mapped?.error?.message.contains("192.168.1.1 inside ::ffff:0.0.0.0/96") == true,
                    "\(String(describing: mapped?.error?.message))")
        }
    }

    @Test(arguments: ["http://169.254.169.254/latest/meta-data/", "http://10.0.0.1/a.img", "http://[::1]:9/a.img"])
    func aRedirectToAPrivateAddressIsRefusedAtThatHop(target: String) async throws {
        let resolver = ScriptedResolver()
        resolver.set("images.test", ["127.0.0.1"])
        let policy = AddressPolicy(allowedHosts: ["images.test"])
        try await withOriginAndDownloader(config(resolver, policy)) { origin, downloader in
            origin.setRoute("/hop.img", .redirect(to: target))
            let start = url("images.test", origin, "/hop.img")
            let result = await load(downloader, start)
            let error = try #require(result?.error)
            #expect(error.code == .forbiddenAddress)
            #expect(error.url == start)
            #expect(error.message.contains(target), "the hop is named: \(error.message)")
            #expect(origin.requestCount("/hop.img") == 1)
        }
    }

    @Test func anAddressLiteralIsCheckedWithoutALookup() async throws {
        let resolver = ScriptedResolver()
        try await withOriginAndDownloader(config(resolver)) { origin, downloader in
            origin.setRoute("/a.img", .data(picture))
            let result = await load(downloader, origin.url("/a.img"))
            #expect(result?.error?.code == .forbiddenAddress)
            #expect(result?.error?.message.contains("127.0.0.1:\(origin.port)") == true)
            let unspecified = await load(downloader, URL(string: "http://0.0.0.0:\(origin.port)/a.img")!)
            #expect(unspecified?.error?.code == .forbiddenAddress)
            #expect(origin.stats.connectionsAccepted == 0)
        }
    }

    /// A refusal depends on where a name points now and on the allow-list, so the manager must not
    /// put the URL on its failed-URL list, and a retry strategy must not try it again.
    @Test func aRefusedURLIsNeitherBlockedNorRetried() async throws {
        let resolver = ScriptedResolver()
        resolver.set("images.test", ["10.1.2.3"])
        let clock = TestClock()
        var config = config(resolver)
        config.retryStrategy = RetryStrategy(maxRetries: 3)
        config.clock = clock
        try await withOriginAndDownloader(config) { origin, downloader in
            let caches = ImageCacheHarness()
            defer { caches.remove() }
            let manager = ImageManager(cache: caches.cache, loader: downloader)
            let target = url("images.test", origin, "/a.img")
            for attempt in 1...2 {
                let error = await #expect(throws: WebImageError.self) {
                    try await manager.image(for: target, context: .testing(coder))
                }
                #expect(error?.code == .forbiddenAddress, "attempt \(attempt)")
                #expect(!manager.isFailedURL(target))
            }
            #expect(resolver.questions("images.test") == 2, "each load tried once, no retry")
            #expect(clock.requestedSleeps.isEmpty)
        }
    }

    @Test func anUnresolvableNameIsAConnectionFailureNamingTheHost() async throws {
        let resolver = ScriptedResolver()
        try await withOriginAndDownloader(config(resolver)) { origin, downloader in
            let result = await load(downloader, url("nowhere.test", origin, "/a.img"))
            #expect(result?.error?.code == .connectionFailed)
            #expect(result?.error?.message.contains("\"nowhere.test\" could not be resolved") == true,
                    "\(String(describing: result?.error?.message))")
        }
    }

    /// TLS runs end to end: the pinned client still sends the name (SNI) and checks the certificate
    /// against it, and an insecure request gets its image.
    @Test func httpsToAPinnedNameKeepsTLSEndToEnd() async throws {
        let resolver = ScriptedResolver()
        resolver.set("localhost", ["127.0.0.1"])
        let policy = AddressPolicy(allowedNetworks: [IPNetwork("127.0.0.1/32")!])
        try await withTestOrigin(tls: TestOriginTLS.serverContext()) { origin in
            try await withDownloader(config(resolver, policy)) { downloader in
                origin.setRoute("/a.img", .data(picture))
                let https = URL(string: "https://localhost:\(origin.port)/a.img")!
                let verified = await load(downloader, https)
                #expect(verified?.error?.code == .tlsFailure, "\(String(describing: verified?.error))")
                #expect(origin.requestCount("/a.img") == 0)
                let insecure = try await downloader.loadImage(https, options: [.allowInvalidSSLCertificates],
                                                              context: .testing(coder))
                #expect(insecure.image?.pixelSize == PixelSize(width: 6, height: 4))
                #expect(origin.requestCount("/a.img") == 1)
                #expect(resolver.questions("localhost") >= 1)
            }
        }
    }

    @Test func pinnedClientsCloseWithTheDownloader() async throws {
        let resolver = ScriptedResolver()
        resolver.set("images.test", ["127.0.0.1"])
        try await withTestOrigin { origin in
            origin.setRoute("/a.img", .data(picture))
            let downloader = ImageDownloader(config: config(resolver, AddressPolicy(allowedHosts: ["images.test"])))
            let loaded = await load(downloader, url("images.test", origin, "/a.img"))
            #expect(loaded?.image != nil)
            #expect(downloader.guarded?.pinnedCount == 1)
            try await downloader.shutdown()
            #expect(downloader.guarded?.pinnedCount == 0)
            let after = await load(downloader, url("images.test", origin, "/a.img"))
            #expect(after?.error?.code == .invalidDownloadOperation)
        }
    }

    /// At most `capacity` names stay pinned; the least recently used one goes first.
    @Test func pinnedNamesAreBoundedLeastRecentlyUsedFirst() async throws {
        let resolver = ScriptedResolver()
        for name in ["a.test", "b.test", "c.test"] { resolver.set(name, ["127.0.0.1"]) }
        let client = HTTPClient(eventLoopGroupProvider: .shared(HTTPClient.defaultEventLoopGroup))
        let clock = TestClock(.manual)
        let guarded = GuardedClients(policy: AddressPolicy(allowedNetworks: [IPNetwork("127.0.0.1/32")!]),
                                     resolver: resolver, configuration: HTTPClient.Configuration(), direct: client,
                                     group: HTTPClient.defaultEventLoopGroup, clock: clock, capacity: 2,
                                     logger: DownloaderConfig().logger)
        for name in ["a.test", "b.test"] {
            try await guarded.lease(for: URL(string: "http://\(name)/x")!).release()
            clock.advance(by: .seconds(1))
        }
        try await guarded.lease(for: URL(string: "http://a.test/x")!).release()  // b.test is now the oldest
        clock.advance(by: .seconds(1))
        try await guarded.lease(for: URL(string: "http://c.test/x")!).release()
        #expect(guarded.pinnedCount == 2)
        try await guarded.lease(for: URL(string: "http://a.test/x")!).release()
        #expect(resolver.questions("a.test") == 1, "a.test stayed pinned")
        try await guarded.lease(for: URL(string: "http://b.test/x")!).release()
        #expect(resolver.questions("b.test") == 2, "b.test was evicted and resolved again")
        await guarded.shutdown()
        try await client.shutdown()
    }

    @Test func theSystemResolverAnswersAddressLiteralsAndTheHostsFile() async throws {
        let resolver = SystemHostResolver()
        #expect(try await resolver.addresses(of: "127.0.0.1", port: 80) == [IPAddress("127.0.0.1")!])
        let localhost = try await resolver.addresses(of: "localhost", port: 80)
        #expect(localhost.contains(IPAddress("127.0.0.1")!) || localhost.contains(IPAddress("::1")!), "\(localhost)")
        #expect(localhost.allSatisfy { RestrictedRange.containing($0)?.kind == .loopback })
    }

    @Test func withTheGuardOffRequestsGoStraightToTheClient() async throws {
        try await withOriginAndDownloader { origin, downloader in
            #expect(downloader.guarded == nil)
            origin.setRoute("/a.img", .data(picture))
            let result = try await downloader.loadImage(origin.url("/a.img"), context: .testing(coder))
            #expect(result.image != nil)
        }
    }
}
