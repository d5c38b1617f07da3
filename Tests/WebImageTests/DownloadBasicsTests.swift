import Foundation
import Testing
@testable import WebImage
@testable import WebImageCodecs
@testable import WebImageLoading

@Suite("Download basics: requests, headers, validation, modifiers")
struct DownloadBasicsTests {
    let coder = TestImageCoder()
    let picture = TestImageCoder.encode(width: 6, height: 4)

    @Test func simpleDownloadDeliversImageDataAndResponse() async throws {
        try await withOriginAndDownloader { origin, downloader in
            origin.setRoute("/a.img", .data(picture, contentType: "image/x-test"))
            let result = try await downloader.loadImage(origin.url("/a.img"), context: .testing(coder))
            #expect(result.image?.pixelSize == PixelSize(width: 6, height: 4))
            #expect(result.data == Data(picture))
            #expect(result.isFinished && result.error == nil)
            #expect(result.response?.statusCode == 200)
            #expect(result.response?.mimeType == "image/x-test")
            let seen = try #require(origin.requests("/a.img").first)
            #expect(seen.header("Accept") == "image/*,*/*;q=0.8")
            #expect(seen.header("User-Agent") == "WebImage/\(WebImageVersion.string) (Linux)")
        }
    }

    @Test func headersCanBeSetAndRemoved() async throws {
        try await withOriginAndDownloader { origin, downloader in
            origin.setRoute("/h.img", .data(picture))
            downloader.setHeader("yes", for: "X-Test")
            #expect(downloader.header(for: "x-test") == "yes")
            downloader.setHeader(nil, for: "Accept")
            #expect(downloader.header(for: "Accept") == nil)
            _ = try await downloader.loadImage(origin.url("/h.img"), context: .testing(coder))
            let seen = try #require(origin.requests("/h.img").first)
            #expect(seen.header("X-Test") == "yes")
            #expect(seen.header("Accept") == nil)
        }
    }

    @Test func statusOutsideTheAcceptableSetIsAnErrorThatDoesNotBlock() async throws {
        try await withOriginAndDownloader { origin, downloader in
            origin.setRoute("/missing.img", .status(404))
            let url = origin.url("/missing.img")
            let error = await #expect(throws: WebImageError.self) {
                try await downloader.loadImage(url, context: .testing(coder))
            }
            #expect(error?.code == .invalidDownloadStatusCode)
            #expect(error?.httpStatus == 404)
            #expect(error?.contentType == "text/plain")
            #expect(error?.url == url)
            #expect(!downloader.shouldBlockFailedURL(url, error: error!))
        }
    }

    @Test func acceptableStatusCodesAndContentTypesAreChecked() async throws {
        var config = DownloaderConfig()
        config.acceptableStatusCodes = [1]
        try await withOriginAndDownloader(config) { origin, downloader in
            origin.setRoute("/a.img", .data(picture, contentType: "image/jpeg"))
            let error = await #expect(throws: WebImageError.self) {
                try await downloader.loadImage(origin.url("/a.img"), context: .testing(coder))
            }
            #expect(error?.code == .invalidDownloadStatusCode)
            #expect(error?.httpStatus == 200)
            downloader.config.acceptableStatusCodes = nil
            downloader.config.acceptableContentTypes = ["application/json"]
            let typeError = await #expect(throws: WebImageError.self) {
                try await downloader.loadImage(origin.url("/a.img"), context: .testing(coder))
            }
            #expect(typeError?.code == .invalidDownloadContentType)
            #expect(typeError?.contentType == "image/jpeg")
        }
    }

    @Test func invalidURLFailsSynchronouslyWithNoToken() async throws {
        try await withDownloader { downloader in
            let recorder = LoadRecorder()
            let token = downloader.requestImage(with: URL(string: "ftp://example.com/a.png")!, options: [],
                                                context: .none, progress: nil, completion: recorder.completion)
            #expect(token == nil)
            #expect(recorder.finals.first?.error?.code == .invalidURL)
            #expect(downloader.shouldBlockFailedURL(URL(string: "ftp://x")!, error: recorder.finals[0].error!))
        }
    }

    @Test func requestModifierCanAddHeadersOrRefuse() async throws {
        try await withOriginAndDownloader { origin, downloader in
            origin.setRoute("/m.img?q=1", .data(picture))
            var context = WebImageContext.testing(coder)
            context.requestModifier = DownloadRequestModifier { request in
                var request = request
                request.headers.set("Biz", "Bazz")
                request.url = URL(string: request.url.absoluteString + "?q=1")!
                return request
            }
            let result = try await downloader.loadImage(origin.url("/m.img"), context: context)
            #expect(result.image != nil)
            #expect(origin.requests("/m.img?q=1").first?.header("Biz") == "Bazz")

            let recorder = LoadRecorder()
            var refusing = WebImageContext.testing(coder)
            refusing.requestModifier = DownloadRequestModifier { _ in nil }
            let token = downloader.requestImage(with: origin.url("/other.img"), options: [], context: refusing,
                                                progress: nil, completion: recorder.completion)
            #expect(token == nil)
            #expect(recorder.finals.first?.error?.code == .invalidDownloadOperation)
            #expect(origin.requestCount("/other.img") == 0)
        }
    }

    @Test func headersConvenienceModifierSetsExactlyThoseHeaders() async throws {
        let modifier = DownloadRequestModifier(headers: ["Biz": "Bazz"])
        let plain = ImageDownloadRequest(url: URL(string: "http://example.com/a")!)
        let modified = try #require(modifier.modify(plain))
        #expect(modified.headers == [HTTPHeaderField(name: "Biz", value: "Bazz")])
        #expect(modified.method == "GET")
    }

    @Test func responseModifierCanChangeStatusOrReject() async throws {
        try await withOriginAndDownloader { origin, downloader in
            origin.setRoute("/r.img", .data(picture))
            var context = WebImageContext.testing(coder)
            context.responseModifier = DownloadResponseModifier(statusCode: 404, headers: ["Foo": "Bar"])
            let recorder = LoadRecorder()
            let token = try #require(downloader.requestImage(with: origin.url("/r.img"), options: [], context: context,
                                                             progress: nil, completion: recorder.completion)
                as? ImageDownloadToken)
            await recorder.waitForFinal()
            #expect(recorder.finals[0].error?.code == .invalidDownloadStatusCode)
            #expect(recorder.finals[0].error?.httpStatus == 404)
            #expect(token.response?.headers[header: "Foo"] == "Bar")

            context.responseModifier = DownloadResponseModifier { _ in nil }
            let error = await #expect(throws: WebImageError.self) {
                try await downloader.loadImage(origin.url("/r.img"), context: context)
            }
            #expect(error?.code == .invalidDownloadResponse)
        }
    }

    @Test func decryptorTransformsTheBodyAndNilIsBadData() async throws {
        try await withOriginAndDownloader { origin, downloader in
            let encoded = Array(Data(picture).base64EncodedString(options: .lineLength64Characters).utf8)
            origin.setRoute("/b64.img", .data(encoded, contentType: "text/plain"))
            var context = WebImageContext.testing(coder)
            context.decryptor = .base64
            let result = try await downloader.loadImage(origin.url("/b64.img"), context: context)
            #expect(result.image?.pixelSize == PixelSize(width: 6, height: 4))
            #expect(result.data == Data(picture))

            origin.setRoute("/nil.img", .data(picture))
            context.decryptor = DownloadDecryptor { _, _ in nil }
            let url = origin.url("/nil.img")
            let error = await #expect(throws: WebImageError.self) {
                try await downloader.loadImage(url, context: context)
            }
            #expect(error?.code == .badImageData)
            #expect(downloader.shouldBlockFailedURL(url, error: error!))
        }
    }

    @Test func undecodableAndEmptyBodiesAreBadData() async throws {
        try await withOriginAndDownloader { origin, downloader in
            origin.setRoute("/junk.img", .data(Array("not an image".utf8)))
            origin.setRoute("/empty.img", .data([]))
            for path in ["/junk.img", "/empty.img"] {
                let error = await #expect(throws: WebImageError.self) {
                    try await downloader.loadImage(origin.url(path), context: .testing(coder))
                }
                #expect(error?.code == .badImageData)
                #expect(error?.httpStatus == 200)
            }
        }
    }

    @Test func basicCredentialsAnswerTheChallenge() async throws {
        var config = DownloaderConfig()
        config.username = "user"
        config.password = "secret"
        try await withOriginAndDownloader(config) { origin, downloader in
            var route = TestOriginRoute.data(picture)
            route.basicAuth = ("user", "secret")
            origin.setRoute("/private.img", route)
            origin.setRoute("/private2.img", route)
            let result = try await downloader.loadImage(origin.url("/private.img"), context: .testing(coder))
            #expect(result.image != nil)
            #expect(origin.requestCount("/private.img") == 2)
            // After one challenge the credential is sent up front to that origin.
            let again = try await downloader.loadImage(origin.url("/private2.img"), context: .testing(coder))
            #expect(again.image != nil)
            #expect(origin.requestCount("/private2.img") == 1)
        }
    }

    @Test func missingCredentialsGive401() async throws {
        try await withOriginAndDownloader { origin, downloader in
            var route = TestOriginRoute.data(picture)
            route.basicAuth = ("user", "secret")
            origin.setRoute("/private.img", route)
            let error = await #expect(throws: WebImageError.self) {
                try await downloader.loadImage(origin.url("/private.img"), context: .testing(coder))
            }
            #expect(error?.httpStatus == 401)
        }
    }

    @Test func tokenCarriesMetrics() async throws {
        try await withOriginAndDownloader { origin, downloader in
            origin.setRoute("/m.img", .data(picture))
            let recorder = LoadRecorder()
            let token = try #require(downloader.requestImage(with: origin.url("/m.img"), options: [],
                                                             context: .testing(coder), progress: nil,
                                                             completion: recorder.completion) as? ImageDownloadToken)
            await recorder.waitForFinal()
            let metrics = token.metrics
            #expect(metrics.startedAt != nil && metrics.responseAt != nil && metrics.firstByteAt != nil)
            #expect(metrics.endedAt != nil)
            let stages = [metrics.queuedAt, metrics.startedAt, metrics.responseAt, metrics.firstByteAt, metrics.endedAt]
            let times = stages.compactMap { $0 }
            #expect(times.count == 5)
            #expect(zip(times, times.dropFirst()).allSatisfy { $0 <= $1 },
                    "queued ≤ started ≤ response ≤ first byte ≤ ended: \(times.map { $0.timeIntervalSince1970 })")
            #expect(metrics.timeToResponse.map { $0 >= 0 } == true)
            #expect(metrics.totalDuration.map { $0 >= (metrics.timeToResponse ?? 0) } == true)
            #expect(metrics.callerCount == 1)
            #expect(metrics.connectionReused == nil, "AsyncHTTPClient does not report reuse; no guessed value")
            #expect(metrics.bytesReceived == Int64(picture.count))
            #expect(metrics.statusCode == 200)
            #expect(token.request.headers[header: "Accept"] == "image/*,*/*;q=0.8")
        }
    }

    @Test func cookiesAreStoredAndSentWithHandleCookies() async throws {
        try await withOriginAndDownloader { origin, downloader in
            var route = TestOriginRoute.data(picture)
            route.headers = [("Set-Cookie", "session=abc; Path=/")]
            origin.setRoute("/login.img", route)
            origin.setRoute("/next.img", .data(picture))
            _ = try await downloader.loadImage(origin.url("/login.img"), options: .handleCookies, context: .testing(coder))
            _ = try await downloader.loadImage(origin.url("/next.img"), options: .handleCookies, context: .testing(coder))
            #expect(origin.requests("/next.img").first?.header("Cookie") == "session=abc")
            #expect(downloader.cookieJar.count == 1)
        }
    }

    @Test func shutDownDownloaderRefusesRequests() async throws {
        let downloader = ImageDownloader()
        try await downloader.shutdown()
        try await downloader.shutdown()
        let recorder = LoadRecorder()
        let token = downloader.requestImage(with: URL(string: "http://127.0.0.1:1/a.img")!, options: [],
                                            context: .none, progress: nil, completion: recorder.completion)
        #expect(token == nil)
        #expect(recorder.finals.first?.error?.code == .invalidDownloadOperation)
    }
}
