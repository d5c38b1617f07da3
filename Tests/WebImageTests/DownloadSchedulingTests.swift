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

    @Test func originNeverSeesMoreThanTheLimit() async throws {
        var config = DownloaderConfig()
        config.maxConcurrentDownloads = 3
        try await withOriginAndDownloader(config) { origin, downloader in
            let coder = TestImageCoder()
            let recorders = (0..<12).map { _ in LoadRecorder() }
            for (index, recorder) in recorders.enumerated() {
                origin.setRoute("/p\(index).img", .data(picture, delay: .milliseconds(100)))
                downloader.requestImage(with: origin.url("/p\(index).img"), options: [], context: .testing(coder),
                                        progress: nil, completion: recorder.completion)
            }
            #expect(await waitUntil { recorders.allSatisfy { !$0.finals.isEmpty } })
            #expect(recorders.allSatisfy { $0.finals.first?.image != nil })
            #expect(origin.stats.maxInFlight <= 3)
            #expect(origin.stats.maxInFlight >= 2)
        }
    }

    @Test func raisingTheLimitWhileRunningStartsMoreDownloads() async throws {
        var config = DownloaderConfig()
        config.maxConcurrentDownloads = 1
        try await withOriginAndDownloader(config) { origin, downloader in
            let coder = TestImageCoder()
            let recorders = (0..<12).map { _ in LoadRecorder() }
            for (index, recorder) in recorders.enumerated() {
                origin.setRoute("/live\(index).img", .data(picture, mode: .stallAfter(3)))
                downloader.requestImage(with: origin.url("/live\(index).img"), options: [], context: .testing(coder),
                                        progress: nil, completion: recorder.completion)
            }
            #expect(await waitUntil { origin.stats.inFlight == 1 })
            try await Task.sleep(for: .milliseconds(200))
            #expect(origin.stats.inFlight == 1)
            // Past the HTTP client's default of 8 connections per host.
            downloader.maxConcurrentDownloads = 10
            #expect(await waitUntil { origin.stats.inFlight == 10 })
            try await Task.sleep(for: .milliseconds(100))
            #expect(origin.stats.maxInFlight == 10)
            downloader.cancelAllDownloads()
            #expect(await waitUntil { recorders.allSatisfy { !$0.finals.isEmpty } })
        }
    }

    @Test func lifoRunsTheNewestPendingDownloadNext() async throws {
        var config = DownloaderConfig()
        config.maxConcurrentDownloads = 1
        config.executionOrder = .lifo
        try await withOriginAndDownloader(config) { origin, downloader in
            let coder = TestImageCoder()
            let order = Mutex<[Int]>([])
            let done = Atomic<Int>(0)
            func request(_ index: Int) {
                origin.setRoute("/l\(index).img", .data(picture, delay: .milliseconds(index == 1 || index == 7 ? 400 : 20)))
                downloader.requestImage(with: origin.url("/l\(index).img"), options: [], context: .testing(coder),
                                        progress: nil) { result in
                    guard result.isFinished else { return }
                    order.withLock { $0.append(index) }
                    done.add(1, ordering: .relaxed)
                }
            }
            for index in 1...7 { request(index) }
            // Once 7 is running (1 finished), queue 8…14.
            #expect(await waitUntil { origin.requestCount("/l7.img") == 1 })
            for index in 8...14 { request(index) }
            #expect(await waitUntil { done.load(ordering: .relaxed) == 14 })
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
                origin.setRoute("/f\(index).img", .data(picture, delay: .milliseconds(30)))
                downloader.requestImage(with: origin.url("/f\(index).img"), options: [], context: .testing(coder),
                                        progress: nil, completion: recorder.completion)
            }
            #expect(await waitUntil { recorders.allSatisfy { !$0.finals.isEmpty } })
            #expect(arrivalOrder(origin, prefix: "/f") == (0..<5).map { "/f\($0).img" })
        }
    }

    @Test func highPriorityOvertakesAndLowJoinedByHighIsPromoted() async throws {
        var config = DownloaderConfig()
        config.maxConcurrentDownloads = 1
        try await withOriginAndDownloader(config) { origin, downloader in
            let coder = TestImageCoder()
            for name in ["busy", "normal", "low", "high", "promoted"] {
                origin.setRoute("/\(name).img", .data(picture, delay: .milliseconds(name == "busy" ? 300 : 10)))
            }
            let recorders = (0..<6).map { _ in LoadRecorder() }
            func request(_ name: String, _ options: WebImageOptions, _ recorder: LoadRecorder) {
                downloader.requestImage(with: origin.url("/\(name).img"), options: options, context: .testing(coder),
                                        progress: nil, completion: recorder.completion)
            }
            request("busy", [], recorders[0])
            #expect(await waitUntil { origin.requestCount("/busy.img") == 1 })
            request("normal", [], recorders[1])
            request("low", .lowPriority, recorders[2])
            request("promoted", .lowPriority, recorders[3])
            request("high", .highPriority, recorders[4])
            request("promoted", .highPriority, recorders[5])
            #expect(await waitUntil { recorders.allSatisfy { !$0.finals.isEmpty } })
            #expect(arrivalOrder(origin, prefix: "/") == ["/busy.img", "/promoted.img", "/high.img", "/normal.img", "/low.img"])
        }
    }

    @Test func suspendedQueueWaits() async throws {
        try await withOriginAndDownloader { origin, downloader in
            origin.setRoute("/s.img", .data(picture))
            downloader.isSuspended = true
            let recorder = LoadRecorder()
            downloader.requestImage(with: origin.url("/s.img"), options: [], context: .testing(TestImageCoder()),
                                    progress: nil, completion: recorder.completion)
            try await Task.sleep(for: .milliseconds(200))
            #expect(origin.requestCount("/s.img") == 0)
            downloader.isSuspended = false
            #expect(await waitUntil { !recorder.finals.isEmpty })
            #expect(recorder.finals.first?.image != nil)
        }
    }
}
