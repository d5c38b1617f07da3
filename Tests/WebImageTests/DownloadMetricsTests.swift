import CoreMetrics
import Foundation
import Logging
import MetricsTestKit
import Testing
@testable import WebImage
@testable import WebImageCodecs
@testable import WebImageLoading

/// The swift-metrics backend of the test process. Bootstrapping is global and allowed once, so
/// only this suite does it, on first use; other suites' downloads are counted too from then on,
/// so every check compares a before/after difference with "at least".
enum DownloadTestMetrics {
    static let backend: TestMetrics = {
        let metrics = TestMetrics()
        MetricsSystem.bootstrap(metrics)
        return metrics
    }()

    static func counter(_ label: String, _ dimensions: [(String, String)] = []) -> Int64 {
        backend.counterTotal(label: label, dimensions: dimensions)
    }

    static func timerCount(_ label: String) -> Int {
        backend.timers(label: label).map { $0.values.count }.reduce(0, +)
    }
}

@Suite("Download observability: swift-metrics counters, quiet logger")
struct DownloadMetricsTests {
    let picture = TestImageCoder.encode(width: 10, height: 10)

    /// The value of every counter and timer this suite checks.
    private struct Snapshot {
        var started, completed, failed404, coalesced, cancelled, bytes: Int64
        var durations, queueWaits: Int

        init() {
            typealias M = DownloadTestMetrics
            started = M.counter("webimage_downloads_started_total")
            completed = M.counter("webimage_downloads_completed_total")
            failed404 = M.counter("webimage_downloads_failed_total",
                                  [("code", WebImageError.Code.invalidDownloadStatusCode.name)])
            coalesced = M.counter("webimage_downloads_coalesced_total")
            cancelled = M.counter("webimage_downloads_cancelled_total")
            bytes = M.counter("webimage_download_bytes_total")
            durations = M.timerCount("webimage_download_duration_seconds")
            queueWaits = M.timerCount("webimage_download_queue_seconds")
        }
    }

    @Test func countersAndTimersRecordDownloadsJoinsFailuresAndCancels() async throws {
        _ = DownloadTestMetrics.backend
        let coder = TestImageCoder()
        let before = Snapshot()
        try await withOriginAndDownloader { origin, downloader in
            let gate = TestGate()
            origin.setRoute("/shared.img", .data(picture, mode: .gated(5, gate)))
            origin.setRoute("/plain.img", .data(picture))
            origin.setRoute("/stall.img", .data(picture, mode: .stallAfter(5)))

            // One download with three callers: one start, two joins.
            let sharers = (0..<3).map { _ in LoadRecorder() }
            downloader.requestImage(with: origin.url("/shared.img"), options: [], context: .testing(coder),
                                    progress: nil, completion: sharers[0].completion)
            await origin.waitForRequest("/shared.img")
            for recorder in sharers.dropFirst() {
                downloader.requestImage(with: origin.url("/shared.img"), options: [], context: .testing(coder),
                                        progress: nil, completion: recorder.completion)
            }
            gate.open()
            await waitForFinals(sharers)
            _ = try await downloader.loadImage(origin.url("/plain.img"), context: .testing(coder))
            await #expect(throws: WebImageError.self) {
                try await downloader.loadImage(origin.url("/missing.img"), context: .testing(coder))
            }
            let stalled = LoadRecorder()
            let token = downloader.requestImage(with: origin.url("/stall.img"), options: [], context: .testing(coder),
                                                progress: nil, completion: stalled.completion)
            await origin.waitForRequest("/stall.img")
            token?.cancel()
            await stalled.waitForFinal()
        }
        // Every counter and timer is bumped before the callback it belongs to runs (or, for the
        // cancel, inside `cancel()`), so all of them are in place now.
        let expected: [(String, (Snapshot) -> Int64, Int64)] = [
            ("started", \.started, 4), ("completed", \.completed, 2), ("failed 404", \.failed404, 1),
            ("coalesced", \.coalesced, 2), ("cancelled", \.cancelled, 1),
            ("bytes", \.bytes, Int64(2 * picture.count)),
            ("durations", { Int64($0.durations) }, 2), ("queue waits", { Int64($0.queueWaits) }, 2),
        ]
        let after = Snapshot()
        for (name, value, least) in expected {
            #expect(value(after) - value(before) >= least, "\(name): \(value(before)) → \(value(after))")
        }
    }

    @Test func theDefaultLoggerIsSilent() {
        #expect(DownloaderConfig().logger.handler is SwiftLogNoOpLogHandler)
        #expect(DownloaderConfig.default.logger.handler is SwiftLogNoOpLogHandler)
        #expect(ImageDownloader.shared.config.logger.handler is SwiftLogNoOpLogHandler)
    }
}
