import Foundation
import Synchronization
import Testing
@testable import WebImage
@testable import WebImageCodecs
@testable import WebImageLoading

@Suite("Download scheduling: concurrency limit, order, priority")
struct DownloadSchedulingTests {
    let picture = TestImageCoder.encode(width: 4, height: 4)

    /// The order in which the origin received requests for paths starting with `prefix`.
    private func arrivalOrder(_ origin: TestOrigin, prefix: String) -> [String] {
        origin.stats.requests.map(\.path).filter { $0.hasPrefix(prefix) }
    }

    /// How many of `tokens`' downloads have left the queue: the downloader's own record.
    private func startedCount(_ tokens: [(any ImageLoadCancellable)?]) -> Int {
        tokens.count { ($0 as? ImageDownloadToken)?.metrics.startedAt != nil }
    }

    @Test func originNeverSeesMoreThanTheLimit() async throws {
        var config = DownloaderConfig()
        config.maxConcurrentDownloads = 3
        try await withOriginAndDownloader(config) { origin, downloader in
            let coder = TestImageCoder()
            let gate = TestGate()
            let recorders = (0..<12).map { _ in LoadRecorder() }
            var tokens: [(any ImageLoadCancellable)?] = []
            for (index, recorder) in recorders.enumerated() {
                origin.setRoute("/p\(index).img", .data(picture, mode: .gated(0, gate)))
                tokens.append(downloader.requestImage(with: origin.url("/p\(index).img"), options: [],
                                                      context: .testing(coder), progress: nil,
                                                      completion: recorder.completion))
            }
            // Three requests held at the origin; the downloader has started those three and queued the rest.
            await origin.wait("3 requests in flight") { $0.inFlight == 3 }
            #expect(startedCount(tokens) == 3)
            #expect(downloader.currentDownloadCount == 12)
            gate.open()
            await waitForFinals(recorders)
            #expect(recorders.allSatisfy { $0.finals.first?.image != nil })
            #expect(startedCount(tokens) == 12)
            #expect(origin.stats.maxInFlight == 3)
        }
    }

    @Test func raisingTheLimitWhileRunningStartsMoreDownloads() async throws {
        var config = DownloaderConfig()
        config.maxConcurrentDownloads = 1
        config.maxConcurrentDownloadsPerHost = 12  // one host: the global limit is the one under test
        try await withOriginAndDownloader(config) { origin, downloader in
            let coder = TestImageCoder()
            let recorders = (0..<12).map { _ in LoadRecorder() }
            var tokens: [(any ImageLoadCancellable)?] = []
            for (index, recorder) in recorders.enumerated() {
                origin.setRoute("/live\(index).img", .data(picture, mode: .stallAfter(3)))
                tokens.append(downloader.requestImage(with: origin.url("/live\(index).img"), options: [],
                                                      context: .testing(coder), progress: nil,
                                                      completion: recorder.completion))
            }
            await origin.wait("1 request in flight") { $0.inFlight == 1 }
            // The downloader itself holds the other eleven back.
            #expect(startedCount(tokens) == 1)
            // Past the HTTP client's default of 8 connections per host.
            downloader.maxConcurrentDownloads = 10
            #expect(startedCount(tokens) == 10)
            await origin.wait("10 requests in flight") { $0.inFlight == 10 }
            #expect(startedCount(tokens) == 10)
            #expect(origin.stats.maxInFlight == 10)
            downloader.cancelAllDownloads()
            await waitForFinals(recorders)
        }
    }

    @Test func lifoRunsTheNewestPendingDownloadNext() async throws {
        var config = DownloaderConfig()
        config.maxConcurrentDownloads = 1
        config.executionOrder = .lifo
        try await withOriginAndDownloader(config) { origin, downloader in
            let coder = TestImageCoder()
            let order = Mutex<[Int]>([])
            let done = Counter()
            let first = TestGate(), seventh = TestGate()
            func request(_ index: Int) {
                let gate = index == 1 ? first : index == 7 ? seventh : nil
                origin.setRoute("/l\(index).img", .data(picture, mode: gate.map { .gated(0, $0) } ?? .whole))
                downloader.requestImage(with: origin.url("/l\(index).img"), options: [], context: .testing(coder),
                                        progress: nil) { result in
                    guard result.isFinished else { return }
                    order.withLock { $0.append(index) }
                    done.increment()
                }
            }
            // 1 runs (held at the origin) while 2…7 queue; then 7, the newest, runs (held) while 8…14 queue.
            for index in 1...7 { request(index) }
            await origin.waitForRequest("/l1.img")
            first.open()
            await origin.waitForRequest("/l7.img")
            for index in 8...14 { request(index) }
            seventh.open()
            await done.wait(for: 14, "finished downloads")
            #expect(order.withLock { $0 } == [1, 7, 14, 13, 12, 11, 10, 9, 8, 6, 5, 4, 3, 2])
        }
    }

    @Test func fifoRunsTheOldestPendingDownloadNext() async throws {
        var config = DownloaderConfig()
        config.maxConcurrentDownloads = 1
        try await withOriginAndDownloader(config) { origin, downloader in
            let coder = TestImageCoder()
            let recorders = (0..<5).map { _ in LoadRecorder() }
            for (index, recorder) in recorders.enumerated() {
                origin.setRoute("/f\(index).img", .data(picture))
                downloader.requestImage(with: origin.url("/f\(index).img"), options: [], context: .testing(coder),
                                        progress: nil, completion: recorder.completion)
            }
            await waitForFinals(recorders)
            #expect(arrivalOrder(origin, prefix: "/f") == (0..<5).map { "/f\($0).img" })
        }
    }

    @Test func highPriorityOvertakesAndLowJoinedByHighIsPromoted() async throws {
        var config = DownloaderConfig()
        config.maxConcurrentDownloads = 1
        try await withOriginAndDownloader(config) { origin, downloader in
            let coder = TestImageCoder()
            let busy = TestGate()
            origin.setRoute("/busy.img", .data(picture, mode: .gated(0, busy)))
            for name in ["normal", "low", "high", "promoted"] { origin.setRoute("/\(name).img", .data(picture)) }
            let recorders = (0..<6).map { _ in LoadRecorder() }
            func request(_ name: String, _ options: WebImageOptions, _ recorder: LoadRecorder) {
                downloader.requestImage(with: origin.url("/\(name).img"), options: options, context: .testing(coder),
                                        progress: nil, completion: recorder.completion)
            }
            request("busy", [], recorders[0])
            await origin.waitForRequest("/busy.img")
            request("normal", [], recorders[1])
            request("low", .lowPriority, recorders[2])
            request("promoted", .lowPriority, recorders[3])
            request("high", .highPriority, recorders[4])
            request("promoted", .highPriority, recorders[5])
            busy.open()
            await waitForFinals(recorders)
            #expect(arrivalOrder(origin, prefix: "/") == ["/busy.img", "/promoted.img", "/high.img", "/normal.img", "/low.img"])
        }
    }

    /// A suspended queue keeps a request queued: the downloader never starts it (its metrics say
    /// so, and the origin never hears of it) until the queue resumes.
    @Test func suspendedQueueWaits() async throws {
        try await withOriginAndDownloader { origin, downloader in
            origin.setRoute("/s.img", .data(picture))
            downloader.isSuspended = true
            let recorder = LoadRecorder()
            let token = try #require(downloader.requestImage(with: origin.url("/s.img"), options: [],
                                                             context: .testing(TestImageCoder()),
                                                             progress: nil, completion: recorder.completion)
                as? ImageDownloadToken)
            #expect(downloader.currentDownloadCount == 1)
            #expect(token.metrics.startedAt == nil)
            #expect(origin.requestCount("/s.img") == 0)
            downloader.isSuspended = false
            #expect(token.metrics.startedAt != nil)
            #expect(await recorder.waitForFinal()?.image != nil)
            #expect(origin.requestCount("/s.img") == 1)
        }
    }
}
