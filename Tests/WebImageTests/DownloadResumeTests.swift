import Foundation
import Testing
@testable import WebImage
@testable import WebImageCodecs
@testable import WebImageLoading

/// Resuming bodies cut short, against the loopback origin's ranges: what is asked (`Range`,
/// `If-Range`), what is appended, and every answer that makes the download start over instead.
@Suite("Download resume")
struct DownloadResumeTests: ResumeFixture {
    let coder = TestImageCoder()
    let picture = TestImageCoder.encode(width: 64, height: 64)
    var cut: Int { picture.count * 6 / 10 }

    private func fullRoute(_ body: [UInt8]? = nil, etag: String? = "\"v1\"", lastModified: String? = nil) -> TestOriginRoute {
        var route = TestOriginRoute.data(body ?? picture)
        route.acceptsRanges = true
        route.etag = etag
        route.lastModified = lastModified
        return route
    }

    private func load(_ downloader: ImageDownloader, _ url: URL) async throws -> (ImageLoadResult?, DownloadMetrics) {
        let recorder = LoadRecorder()
        let token = try #require(downloader.requestImage(with: url, options: [], context: .testing(coder), progress: nil,
                                                         completion: recorder.completion) as? ImageDownloadToken)
        let result = await recorder.waitForFinal()
        return (result, token.metrics)
    }

    @Test func aRetryAfterACutBodyAsksOnlyForTheRest() async throws {
        try await withOriginAndDownloader(config(retries: 1)) { origin, downloader in
            origin.setRoutes("/cut.img", [cutRoute(), fullRoute()])
            let (result, metrics) = try await load(downloader, origin.url("/cut.img"))
            #expect(result?.data == Data(picture), "the final bytes are the whole file")
            #expect(result?.image?.pixelSize == PixelSize(width: 64, height: 64))
            let requests = origin.requests("/cut.img")
            #expect(requests.count == 2)
            #expect(requests.first?.header("Range") == nil)
            #expect(requests.last?.header("Range") == "bytes=\(cut)-")
            #expect(requests.last?.header("If-Range") == "\"v1\"")
            #expect(metrics.retryCount == 1)
            #expect(metrics.resumedBytes == Int64(cut))
            #expect(metrics.bytesReceived == Int64(picture.count))
        }
    }

    /// A body cut after megabytes: when the origin closes, the bytes still in flight reach the
    /// client in one burst, past anything the download asked for. Every one of them is kept, so
    /// the retry asks for exactly the bytes the origin never sent.
    @Test func aBodyCutAfterMegabytesKeepsEveryByteTheConnectionDelivered() async throws {
        let large = TestImageCoder.encode(width: 1024, height: 1024)
        let largeCut = large.count * 9 / 10
        try await withOriginAndDownloader(config(retries: 1)) { origin, downloader in
            var cutLarge = TestOriginRoute.data(large, mode: .closeAfter(largeCut))
            cutLarge.contentLength = large.count
            cutLarge.acceptsRanges = true
            cutLarge.etag = "\"v1\""
            origin.setRoutes("/large.img", [cutLarge, fullRoute(large)])
            let (result, metrics) = try await load(downloader, origin.url("/large.img"))
            #expect(result?.data == Data(large))
            #expect(origin.requests("/large.img").last?.header("Range") == "bytes=\(largeCut)-")
            #expect(metrics.resumedBytes == Int64(largeCut))
            #expect(metrics.retryCount == 1)
        }
    }

    @Test func aCancelledDownloadIsResumedByTheNextLoad() async throws {
        let messages = RecordingLogHandler.Messages()
        try await withOriginAndDownloader(config(retries: 0, messages: messages)) { origin, downloader in
            let gate = TestGate()
            var held = fullRoute(etag: nil, lastModified: "Tue, 24 Nov 2026 05:00:00 GMT")
            held.mode = .gated(cut, gate)
            origin.setRoute("/held.img", held)
            let received = Watched(Int64(0))
            let recorder = LoadRecorder()
            let token = downloader.requestImage(with: origin.url("/held.img"), options: [], context: .testing(coder),
                                                progress: { count, _, _ in received.update { $0 = max($0, count) } },
                                                completion: recorder.completion)
            await received.wait("\(cut) bytes") { $0 >= Int64(cut) }
            token?.cancel()
            #expect(await recorder.waitForFinal()?.error?.code == .cancelled)
            await messages.wait(for: "kept a partial body to resume")

            origin.setRoute("/held.img", fullRoute(etag: nil, lastModified: "Tue, 24 Nov 2026 05:00:00 GMT"))
            let (result, metrics) = try await load(downloader, origin.url("/held.img"))
            #expect(result?.data == Data(picture))
            let resumed = try #require(origin.requests("/held.img").last)
            #expect(resumed.header("Range") == "bytes=\(cut)-")
            #expect(resumed.header("If-Range") == "Tue, 24 Nov 2026 05:00:00 GMT")
            #expect(metrics.resumedBytes == Int64(cut))
            gate.open()
        }
    }

    @Test func aChangedRepresentationStartsOver() async throws {
        try await withOriginAndDownloader(config(retries: 1)) { origin, downloader in
            let changed = TestImageCoder.encode(width: 32, height: 16)
            origin.setRoutes("/changed.img", [cutRoute(etag: "\"v1\""), fullRoute(changed, etag: "\"v2\"")])
            let (result, metrics) = try await load(downloader, origin.url("/changed.img"))
            // If-Range no longer matches: the server sends the new image whole, nothing is spliced.
            #expect(result?.data == Data(changed))
            #expect(origin.requests("/changed.img").last?.header("If-Range") == "\"v1\"")
            #expect(metrics.resumedBytes == 0)
        }
    }

    @Test func aWrongRangeOrA416IsAskedForAgainWhole() async throws {
        try await withOriginAndDownloader(config(retries: 1)) { origin, downloader in
            var wrongStart = TestOriginRoute(status: 206, body: Array(picture[0..<100]))
            wrongStart.headers = [("Content-Range", "bytes 0-99/\(picture.count)"), ("ETag", "\"v1\"")]
            var otherTotal = TestOriginRoute(status: 206, body: Array(picture[cut...]))
            otherTotal.headers = [("Content-Range", "bytes \(cut)-\(picture.count - 1)/\(picture.count + 7)")]
            var otherETag = TestOriginRoute(status: 206, body: Array(picture[cut...]))
            otherETag.headers = [("Content-Range", "bytes \(cut)-\(picture.count - 1)/\(picture.count)"), ("ETag", "\"v9\"")]
            var unsatisfiable = TestOriginRoute.status(416)
            unsatisfiable.headers = [("Content-Range", "bytes */\(picture.count)")]
            for (index, answer) in [wrongStart, otherTotal, otherETag, unsatisfiable].enumerated() {
                let path = "/answer\(index).img"
                origin.setRoutes(path, [cutRoute(), answer, fullRoute()])
                let (result, metrics) = try await load(downloader, origin.url(path))
                #expect(result?.data == Data(picture), "answer \(index): never spliced")
                let requests = origin.requests(path)
                #expect(requests.count == 3, "answer \(index)")
                #expect(requests.last?.header("Range") == nil, "answer \(index): the third request asks for everything")
                #expect(metrics.resumedBytes == 0)
            }
        }
    }

    @Test func onlyRangesWithAStrongValidatorAreKept() async throws {
        try await withOriginAndDownloader(config(retries: 1)) { origin, downloader in
            var noRanges = cutRoute()
            noRanges.acceptsRanges = false
            var weak = cutRoute(etag: "W/\"v1\"")
            weak.acceptsRanges = true
            let noValidator = cutRoute(etag: nil, lastModified: nil)
            for (index, first) in [noRanges, weak, noValidator].enumerated() {
                let path = "/plain\(index).img"
                origin.setRoutes(path, [first, fullRoute()])
                let (result, _) = try await load(downloader, origin.url(path))
                #expect(result?.data == Data(picture))
                #expect(origin.requests(path).last?.header("Range") == nil, "case \(index)")
            }
        }
    }

    @Test func theStoreKeepsTheNewestWithinItsBudget() {
        let store = ResumableDataStore(budget: 100)
        func entry(_ count: Int) -> ResumableDataStore.Entry {
            ResumableDataStore.Entry(data: Data(repeating: 1, count: count), validator: "\"x\"", totalLength: 1000)
        }
        let urls = (0..<4).map {
            ResumableDataStore.Key(url: "https://example.com/\($0).img", headers: [], credential: nil,
                                   allowsInvalidCertificates: false, handleCookies: false)
        }
        store.store(entry(40), for: urls[0])
        store.store(entry(40), for: urls[1])
        store.store(entry(40), for: urls[2])  // evicts the oldest
        #expect(store.count == 2 && store.totalBytes == 80)
        #expect(store.take(for: urls[0]) == nil)
        #expect(store.take(for: urls[1])?.data.count == 40)
        #expect(store.take(for: urls[1]) == nil, "taken once")
        store.store(entry(101), for: urls[3])
        #expect(store.take(for: urls[3]) == nil, "larger than the budget: not kept")
        #expect(ResumableDataStore(budget: 0).take(for: urls[2]) == nil)
    }

    @Test func contentRangeHeadersAreReadStrictly() {
        #expect(ContentRange("bytes 10-19/20") == ContentRange(first: 10, last: 19, total: 20))
        #expect(ContentRange("bytes 10-19/*") == ContentRange(first: 10, last: 19, total: nil))
        for bad in ["bytes 10-9/20", "bytes 10-20/20", "items 1-2/3", "bytes -5/10", "bytes 1-2", "bytes a-b/c", ""] {
            #expect(ContentRange(bad) == nil, "\(bad)")
        }
        let stored = ResumableDataStore.Entry(data: Data(count: 10), validator: "\"x\"", totalLength: 20)
        #expect(ContentRange(first: 10, last: 19, total: 20).continues(stored))
        #expect(!ContentRange(first: 9, last: 19, total: 20).continues(stored))
        #expect(!ContentRange(first: 10, last: 18, total: 20).continues(stored))
        #expect(!ContentRange(first: 10, last: 20, total: 21).continues(stored))
    }
}
