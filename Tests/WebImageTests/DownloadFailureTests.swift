import Foundation
import Testing
@testable import WebImage
@testable import WebImageCodecs
@testable import WebImageLoading

@Suite("Download failures: broken connections, limits, redirects")
struct DownloadFailureTests {
    let coder = TestImageCoder()
    let picture = TestImageCoder.encode(width: 16, height: 16)

    private func expectError(_ downloader: ImageDownloader, _ url: URL,
                             context: WebImageContext? = nil) async -> WebImageError? {
        await #expect(throws: WebImageError.self) {
            try await downloader.loadImage(url, context: context ?? .testing(coder))
        }
    }

    @Test func truncatedBodyIsAConnectionFailure() async throws {
        try await withOriginAndDownloader { origin, downloader in
            origin.setRoute("/cut.img", .data(picture, mode: .closeAfter(200)))
            let error = await expectError(downloader, origin.url("/cut.img"))
            #expect(error?.code == .connectionFailed)
            #expect(!downloader.shouldBlockFailedURL(origin.url("/cut.img"), error: error!))
        }
    }

    @Test func hangUpWithoutResponseIsAConnectionFailure() async throws {
        try await withOriginAndDownloader { origin, downloader in
            origin.setRoute("/reset.img", .hangUp)
            let error = await expectError(downloader, origin.url("/reset.img"))
            #expect(error?.code == .connectionFailed)
        }
    }

    @Test func refusedConnectionIsAConnectionFailure() async throws {
        let closed = try await TestOrigin.start()
        let url = closed.url("/nobody.img")
        await closed.stop()
        // A refused connection fails as such, at once: retrying until the timeout would end in
        // `timedOut` instead (the error, not a clock, tells them apart).
        try await withDownloader(DownloaderConfig()) { downloader in
            let error = await expectError(downloader, url)
            #expect(error?.code == .connectionFailed)
            #expect(error?.url == url)
        }
    }

    @Test func sizeLimitTripsFromContentLength() async throws {
        var config = DownloaderConfig()
        config.maximumResponseSize = 500
        try await withOriginAndDownloader(config) { origin, downloader in
            origin.setRoute("/big.img", .data(picture))
            let error = await expectError(downloader, origin.url("/big.img"))
            #expect(error?.code == .responseTooLarge)
            #expect(error?.message.contains("declares") == true)
        }
    }

    @Test func sizeLimitTripsWhileStreamingAChunkedBody() async throws {
        var config = DownloaderConfig()
        config.maximumResponseSize = 500
        try await withOriginAndDownloader(config) { origin, downloader in
            origin.setRoute("/chunked.img", .data(picture, mode: .chunked(128)))
            let error = await expectError(downloader, origin.url("/chunked.img"))
            #expect(error?.code == .responseTooLarge)
            #expect(error?.message.contains("streaming") == true)
        }
    }

    @Test func chunkedBodyWithinTheLimitDecodes() async throws {
        try await withOriginAndDownloader { origin, downloader in
            origin.setRoute("/chunked.img", .data(picture, mode: .chunked(100)))
            let result = try await downloader.loadImage(origin.url("/chunked.img"), context: .testing(coder))
            #expect(result.image != nil)
            #expect(result.response?.expectedContentLength == nil)
        }
    }

    @Test func redirectChainIsFollowed() async throws {
        try await withOriginAndDownloader { origin, downloader in
            origin.setRoute("/r1", .redirect(to: "/r2", status: 301))
            origin.setRoute("/r2", .redirect(to: origin.url("/r3").absoluteString, status: 307))
            origin.setRoute("/r3", .redirect(to: "final.img", status: 303))
            origin.setRoute("/final.img", .data(picture))
            let recorder = LoadRecorder()
            let token = try #require(downloader.requestImage(with: origin.url("/r1"), options: [],
                                                             context: .testing(coder), progress: nil,
                                                             completion: recorder.completion) as? ImageDownloadToken)
            await recorder.waitForFinal()
            #expect(recorder.finals.first?.image != nil)
            #expect(recorder.finals.first?.response?.url == origin.url("/final.img"))
            #expect(token.metrics.redirectCount == 3)
        }
    }

    @Test func redirectLoopAndTooManyRedirectsFail() async throws {
        var config = DownloaderConfig()
        config.maximumRedirects = 3
        try await withOriginAndDownloader(config) { origin, downloader in
            origin.setRoute("/loop-a", .redirect(to: "/loop-b"))
            origin.setRoute("/loop-b", .redirect(to: "/loop-a"))
            let loop = await expectError(downloader, origin.url("/loop-a"))
            #expect(loop?.code == .tooManyRedirects)
            for index in 0..<5 { origin.setRoute("/hop\(index)", .redirect(to: "/hop\(index + 1)")) }
            let chain = await expectError(downloader, origin.url("/hop0"))
            #expect(chain?.code == .tooManyRedirects)
            #expect(origin.requestCount("/hop3") == 1 && origin.requestCount("/hop4") == 0)
            #expect(downloader.shouldBlockFailedURL(origin.url("/hop0"), error: chain!))
        }
    }

    @Test func authorizationAndCookieNeverCrossOrigins() async throws {
        try await withTestOrigin { other in
            try await withOriginAndDownloader { origin, downloader in
                other.setRoute("/elsewhere.img", .data(picture))
                origin.setRoute("/same.img", .data(picture))
                origin.setRoute("/to-same", .redirect(to: "/same.img"))
                origin.setRoute("/to-other", .redirect(to: other.url("/elsewhere.img").absoluteString))
                var context = WebImageContext.testing(coder)
                context.requestModifier = DownloadRequestModifier(headers: ["Authorization": "Bearer secret",
                                                                            "Cookie": "id=1", "X-Trace": "t"])
                _ = try await downloader.loadImage(origin.url("/to-same"), context: context)
                let same = try #require(origin.requests("/same.img").first)
                #expect(same.header("Authorization") == "Bearer secret")
                #expect(same.header("Cookie") == "id=1")
                _ = try await downloader.loadImage(origin.url("/to-other"), context: context)
                let elsewhere = try #require(other.requests("/elsewhere.img").first)
                #expect(elsewhere.header("Authorization") == nil)
                #expect(elsewhere.header("Cookie") == nil)
                #expect(elsewhere.header("X-Trace") == "t")
            }
        }
    }

    @Test func basicCredentialIsNotSentToAnotherOriginAfterRedirect() async throws {
        var config = DownloaderConfig()
        config.credential = DownloadCredential(user: "u", password: "p")
        try await withTestOrigin { other in
            try await withOriginAndDownloader(config) { origin, downloader in
                var guarded = TestOriginRoute.redirect(to: other.url("/open.img").absoluteString)
                guarded.basicAuth = ("u", "p")
                origin.setRoute("/guarded", guarded)
                other.setRoute("/open.img", .data(picture))
                let result = try await downloader.loadImage(origin.url("/guarded"), context: .testing(coder))
                #expect(result.image != nil)
                #expect(origin.requests("/guarded").last?.header("Authorization") != nil)
                #expect(other.requests("/open.img").first?.header("Authorization") == nil)
            }
        }
    }

    @Test func anUnresolvableHostIsAConnectionFailureThatSaysDNS() async throws {
        // `.invalid` never resolves (RFC 6761); with no resolver at all the lookup fails too.
        var config = DownloaderConfig()
        config.downloadTimeout = 15 * SanitizerRun.slowdown
        try await withDownloader(config) { downloader in
            let url = URL(string: "http://nonexistent.invalid/a.img")!
            let error = await expectError(downloader, url)
            #expect(error?.code == .connectionFailed, "\(String(describing: error))")
            #expect(error?.url == url)
            #expect(error?.message.contains("\"nonexistent.invalid\" could not be resolved (DNS)") == true,
                    "\(String(describing: error))")
            // A name that does not resolve now may later: not block-listed.
            #expect(error.map { !downloader.shouldBlockFailedURL(url, error: $0) } == true)
        }
    }

    @Test func validatorsAreSentAnd304IsCacheNotModified() async throws {
        let picture = picture
        let sentDate = "Wed, 21 Oct 2015 07:28:00 GMT", newDate = "Thu, 22 Oct 2015 09:15:00 GMT"
        try await withOriginAndDownloader { origin, downloader in
            origin.setHandler("/cond.img") { request in
                guard request.header("If-None-Match") == "\"v2\"" || request.header("If-Modified-Since") == sentDate else {
                    var route = TestOriginRoute.data(picture)
                    route.etag = "\"v2\""
                    route.lastModified = sentDate
                    return route
                }
                // Still current, but the server's validators moved on (a re-tagged, touched file):
                // the 304 carries the new ones, which the caller must see instead of those it sent.
                var notModified = TestOriginRoute(status: 304, contentType: nil)
                notModified.etag = "\"v3\""
                notModified.lastModified = newDate
                return notModified
            }
            let fresh = try await downloader.loadImage(origin.url("/cond.img"), context: .testing(coder))
            let validators = try #require(fresh.response?.validators)
            #expect(validators == HTTPValidators(etag: "\"v2\"", lastModified: sentDate))

            var context = WebImageContext.testing(coder)
            context.validators = HTTPValidators(etag: "\"v2\"")
            let recorder = LoadRecorder()
            downloader.requestImage(with: origin.url("/cond.img"), options: [], context: context, progress: nil,
                                    completion: recorder.completion)
            await recorder.waitForFinal()
            let result = recorder.finals[0]
            #expect(result.error?.code == .cacheNotModified)
            #expect(result.response?.statusCode == 304)
            #expect(result.response?.validators == HTTPValidators(etag: "\"v3\"", lastModified: newDate))
            #expect(origin.requests("/cond.img").last?.header("If-None-Match") == "\"v2\"")
            #expect(origin.requests("/cond.img").last?.header("If-Modified-Since") == nil)
            #expect(!downloader.shouldBlockFailedURL(origin.url("/cond.img"), error: result.error!))

            context.validators = HTTPValidators(lastModified: sentDate)
            let recorderByDate = LoadRecorder()
            downloader.requestImage(with: origin.url("/cond.img"), options: [], context: context, progress: nil,
                                    completion: recorderByDate.completion)
            await recorderByDate.waitForFinal()
            let byDate = recorderByDate.finals[0]
            #expect(byDate.error?.code == .cacheNotModified)
            #expect(byDate.response?.validators == HTTPValidators(etag: "\"v3\"", lastModified: newDate))
            #expect(origin.requests("/cond.img").last?.header("If-Modified-Since") == sentDate)
            #expect(origin.requests("/cond.img").last?.header("If-None-Match") == nil)

            context.validators = HTTPValidators(etag: "\"v1\"")
            let changed = try await downloader.loadImage(origin.url("/cond.img"), context: context)
            #expect(changed.image != nil)
            #expect(changed.response?.validators == HTTPValidators(etag: "\"v2\"", lastModified: sentDate))
        }
    }
}
