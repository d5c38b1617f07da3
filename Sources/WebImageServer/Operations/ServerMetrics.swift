import Prometheus
import Synchronization
import WebImage

/// The server's own metrics, in a Prometheus registry that `/metrics` prints: requests by status
/// and the time spent in each stage. The CLI also makes the registry the swift-metrics backend,
/// so the library's download and cache metrics appear beside them.
final class ServerMetrics: Sendable {
    /// The stages a request's time is split into.
    enum Stage: String, CaseIterable, Sendable {
        /// Waiting for a worker slot.
        case queue
        /// Fetching the source (or reading it from the disk cache), without decoding it.
        case download
        case decode
        case transform
        case encode
        /// The whole request, as the server saw it.
        case total
    }

    /// Where a result came from: the memory or disk result cache, the shared tier, or made here.
    enum ResultTier: String, CaseIterable, Sendable {
        case memory, disk, shared, made
    }

    let registry: PrometheusCollectorRegistry
    private let tierCounters: [ResultTier: Counter]
    private let tierCounts = Mutex<[ResultTier: Int]>([:])
    /// `/info` answers by where they came from: `memory` or `made`.
    private let infoCounters: [ResultTier: Counter]
    private let infoCounts = Mutex<[ResultTier: Int]>([:])
    private let stages: [Stage: DurationHistogram]
    /// One counter per status seen, made once.
    private let requestCounters = Mutex<[Int: Counter]>([:])
    /// `format:best`'s results by the format chosen, made once each.
    private let bestFormatCounters = Mutex<[ImageFormat: Counter]>([:])
    /// `format:best`'s encodes, over all its searches.
    private let bestFormatEncodes: Counter
    private let bestFormatEncodeCount = Mutex(0)
    /// The bitmap pool's counters, read when the metrics are printed.
    private let poolGauges: (hits: Gauge, misses: Gauge, heldBytes: Gauge)

    static let buckets: [Duration] = [.milliseconds(1), .milliseconds(2), .milliseconds(5), .milliseconds(10),
                                      .milliseconds(25), .milliseconds(50), .milliseconds(100), .milliseconds(250),
                                      .milliseconds(500), .seconds(1), .seconds(2), .seconds(5), .seconds(10)]

    init(registry: PrometheusCollectorRegistry) {
        self.registry = registry
        let descriptor = MetricNameDescriptor(
            namespace: "webimage", subsystem: "serve", metricName: "stage_duration", unitName: "seconds",
            helpText: "Time spent in each stage of a request.")
        var stages: [Stage: DurationHistogram] = [:]
        for stage in Stage.allCases {
            stages[stage] = registry.makeDurationHistogram(descriptor: descriptor, labels: [("stage", stage.rawValue)],
                                                           buckets: Self.buckets)
        }
        self.stages = stages
        var tierCounters: [ResultTier: Counter] = [:]
        for tier in ResultTier.allCases {
            tierCounters[tier] = registry.makeCounter(
                descriptor: MetricNameDescriptor(namespace: "webimage", subsystem: "serve", metricName: "results",
                                                 unitName: "total", helpText: "Results served, by where they came from."),
                labels: [("tier", tier.rawValue)])
        }
        self.tierCounters = tierCounters
        var infoCounters: [ResultTier: Counter] = [:]
        for tier in [ResultTier.memory, .made] {
            infoCounters[tier] = registry.makeCounter(
                descriptor: MetricNameDescriptor(namespace: "webimage", subsystem: "serve", metricName: "info_answers",
                                                 unitName: "total", helpText: "/info answers, by where they came from."),
                labels: [("tier", tier.rawValue)])
        }
        self.infoCounters = infoCounters
        bestFormatEncodes = registry.makeCounter(descriptor: MetricNameDescriptor(
            namespace: "webimage", subsystem: "serve", metricName: "best_format_encodes", unitName: "total",
            helpText: "Encodes made by format:best's searches."))
        func poolGauge(_ name: String, _ unit: String, _ help: String) -> Gauge {
            registry.makeGauge(descriptor: MetricNameDescriptor(namespace: "webimage", subsystem: "bitmap_pool",
                                                                metricName: name, unitName: unit, helpText: help))
        }
        // Named webimage_bitmap_pool_hits_total, _misses_total and _held_bytes.
        poolGauges = (poolGauge("hits", "total", "Bitmaps filled into recycled pixel memory."),
                      poolGauge("misses", "total", "Bitmaps that took fresh pixel memory."),
                      poolGauge("held", "bytes", "Pixel memory the pool holds for reuse."))
    }

    /// Counts a result served from `tier`.
    func resultServed(from tier: ResultTier) {
        tierCounters[tier]?.increment()
        tierCounts.withLock { $0[tier, default: 0] += 1 }
    }

    /// Counts an `/info` answer from `tier` (`memory`, or `made`: read from the source), as
    /// `webimage_serve_info_answers_total{tier}`.
    func infoServed(from tier: ResultTier) {
        infoCounters[tier]?.increment()
        infoCounts.withLock { $0[tier, default: 0] += 1 }
    }

    /// `/info` answers so far, by tier.
    var infoByTier: [String: Int] {
        infoCounts.withLock { counts in
            Dictionary(uniqueKeysWithValues: [ResultTier.memory, .made].map { ($0.rawValue, counts[$0, default: 0]) })
        }
    }

    /// Results served so far, by tier (for `/health`).
    var resultsByTier: [String: Int] {
        let counts = tierCounts.withLock { $0 }
        return Dictionary(uniqueKeysWithValues: ResultTier.allCases.map { ($0.rawValue, counts[$0, default: 0]) })
    }

    /// Counts a `format:best` result made in `format` after `encodes` encodes (as
    /// `webimage_serve_best_format_results_total{format}` and `webimage_serve_best_format_encodes_total`).
    func bestFormatChosen(_ format: ImageFormat, encodes: Int) {
        let counter = bestFormatCounters.withLock { counters in
            if let counter = counters[format] { return counter }
            let counter = registry.makeCounter(
                descriptor: MetricNameDescriptor(namespace: "webimage", subsystem: "serve", metricName: "best_format_results",
                                                 unitName: "total", helpText: "format:best results made, by the format chosen."),
                labels: [("format", format.rawValue)])
            counters[format] = counter
            return counter
        }
        counter.increment()
        bestFormatEncodes.increment(by: Int64(encodes))
        bestFormatEncodeCount.withLock { $0 += encodes }
    }

    /// `format:best`'s encodes so far, over all its searches.
    var bestFormatEncodeTotal: Int { bestFormatEncodeCount.withLock { $0 } }

    func record(_ stage: Stage, _ duration: Duration) {
        stages[stage]?.record(duration)
    }

    /// Counts a finished request under its HTTP status.
    func requestFinished(status: Int) {
        let counter = requestCounters.withLock { counters in
            if let counter = counters[status] { return counter }
            let counter = registry.makeCounter(
                descriptor: MetricNameDescriptor(namespace: "webimage", subsystem: "serve", metricName: "requests",
                                                 unitName: "total", helpText: "Requests answered, by HTTP status."),
                labels: [("status", String(status))])
            counters[status] = counter
            return counter
        }
        counter.increment()
    }

    /// The Prometheus text exposition of everything in the registry.
    func text() -> String {
        let pool = BitmapPool.shared.statistics
        poolGauges.hits.set(Double(pool.hits))
        poolGauges.misses.set(Double(pool.misses))
        poolGauges.heldBytes.set(Double(pool.heldBytes))
        return registry.emitToString()
    }
}
