import WebImageCodecs
import Foundation
import Logging
import Metrics

/// swift-metrics counters and timers plus log lines for downloads. Metrics are no-ops until the
/// application bootstraps a backend; the logger is the config's (silent by default).
enum DownloadInstrumentation {
    static func started(url: URL, logger: Logger) {
        Counter(label: "webimage_downloads_started_total").increment()
        logger.debug("download started", metadata: ["url": "\(url.absoluteString)"])
    }

    static func coalesced(url: URL, logger: Logger) {
        Counter(label: "webimage_downloads_coalesced_total").increment()
        logger.trace("joined a running download", metadata: ["url": "\(url.absoluteString)"])
    }

    static func completed(metrics: DownloadMetrics, url: URL, logger: Logger) {
        Counter(label: "webimage_downloads_completed_total").increment()
        Counter(label: "webimage_download_bytes_total").increment(by: Int(metrics.bytesReceived))
        if let total = metrics.totalDuration {
            Metrics.Timer(label: "webimage_download_duration_seconds").recordNanoseconds(Int64(total * 1e9))
        }
        if let wait = metrics.queueDuration {
            Metrics.Timer(label: "webimage_download_queue_seconds").recordNanoseconds(Int64(wait * 1e9))
        }
        logger.debug("download finished", metadata: [
            "url": "\(url.absoluteString)", "bytes": "\(metrics.bytesReceived)",
            "status": "\(metrics.statusCode.map(String.init) ?? "-")",
        ])
    }

    static func failed(_ error: WebImageError, logger: Logger) {
        Counter(label: "webimage_downloads_failed_total", dimensions: [("code", error.code.name)]).increment()
        logger.info("download failed", metadata: ["error": "\(error.description)"])
    }

    static func retrying(_ error: WebImageError, retry: Int, delay: TimeInterval, url: URL, logger: Logger) {
        Counter(label: "webimage_download_retries_total", dimensions: [("code", error.code.name)]).increment()
        logger.info("download retrying", metadata: [
            "url": "\(url.absoluteString)", "retry": "\(retry)", "delay": "\(delay)", "error": "\(error.description)",
        ])
    }

    static func resumed(bytes: Int, url: URL, logger: Logger) {
        Counter(label: "webimage_download_resumed_bytes_total").increment(by: bytes)
        logger.debug("download resumed", metadata: ["url": "\(url.absoluteString)", "bytes": "\(bytes)"])
    }

    static func rateLimited(wait: Duration) {
        Counter(label: "webimage_download_rate_limit_waits_total").increment()
        Metrics.Timer(label: "webimage_download_rate_limit_wait_seconds").recordNanoseconds(
            wait.components.seconds * 1_000_000_000 + wait.components.attoseconds / 1_000_000_000)
    }

    /// The safe-fetch guard refused a connection to `host`:`port` because of `address`.
    static func guardRefused(host: String, port: Int, address: IPAddress, range: RestrictedRange, logger: Logger) {
        Counter(label: "webimage_download_guard_refusals_total", dimensions: [("range", range.kind.rawValue)]).increment()
        logger.warning("safe-fetch guard refused a connection", metadata: [
            "host": "\(host)", "port": "\(port)", "address": "\(address)", "range": "\(range)",
        ])
    }

    static func cancelled(url: URL, logger: Logger) {
        Counter(label: "webimage_downloads_cancelled_total").increment()
        logger.debug("download cancelled", metadata: ["url": "\(url.absoluteString)"])
    }
}
