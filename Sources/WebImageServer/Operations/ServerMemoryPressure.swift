import Foundation
import Logging
import Synchronization
import WebImage

/// How the server answers memory pressure (``ServerConfiguration/memoryPressure``): on each
/// signal the result memory cache, the source cache's memory and the bitmap pool drop the
/// signal's ``MemoryPressureSignal/shrinkFraction`` (half for `some`, everything for `full`), and
/// while the level is above ``MemoryPressureLevel/none`` the work limiter gives out no worker
/// slot: work in a slot finishes, admitted requests wait in their place (answered 504 when their
/// own time limit passes first), and the slots go out again when the pressure eases.
final class ServerMemoryPressure: Sendable {
    let monitor: MemoryPressureMonitor
    private let observation: MemoryPressureObservation
    private let shrinks = ShrinkCount()

    /// Signals that shrank the caches.
    private final class ShrinkCount: Sendable {
        let value = Atomic(0)
    }

    init(monitor: MemoryPressureMonitor, limiter: WorkLimiter, results: ResultMemoryCache?,
         sourceCaches: any ImageCaching, logger: Logger) {
        self.monitor = monitor
        let shrinks = shrinks
        observation = monitor.observe { update in
            let fraction = update.signal.shrinkFraction
            if fraction > 0 {
                results?.shrink(by: fraction)
                sourceCaches.shrinkMemory(by: fraction)
                BitmapPool.shared.shrink(by: fraction)
                shrinks.value.add(1, ordering: .relaxed)
            }
            guard update.level != update.previousLevel else { return }
            limiter.setPaused(update.level > .none)
            logger.log(level: update.level > .none ? .warning : .notice, "memory pressure",
                       metadata: ["level": "\(update.level)", "signal": "\(update.signal)",
                                  "rss_bytes": "\(ProcessMemoryUsage.residentBytes ?? 0)"])
        }
        // A monitor others observe may already be under pressure.
        if monitor.status.level > .none { limiter.setPaused(true) }
    }

    /// Stops following the monitor (its source stops with its last observation).
    func stop() {
        observation.cancel()
    }

    /// The `memory_pressure` object of `/health`.
    var health: [String: Any] {
        let status = monitor.status
        return ["enabled": true, "level": status.level.description, "signals": status.signals,
                "shrinks": shrinks.value.load(ordering: .relaxed), "watching": status.watching]
    }
}

extension ImagePipeline {
    /// The `memory` object of `/health`: the resident set against the cgroup's `memory.max`
    /// (null without one), whether worker slots are held back, and the pressure seen.
    var memoryHealth: [String: Any] {
        let rss = ProcessMemoryUsage.residentBytes ?? 0
        let limit = ProcessMemoryLimit().cgroupLimit
        let fraction = limit.map { Double(rss) / Double($0) }
        return ["rss_bytes": rss,
                "limit_bytes": limit.map { Int(clamping: $0) as Any } ?? NSNull(),
                "rss_fraction_of_limit": fraction.map { $0 as Any } ?? NSNull(),
                "admission_paused": limiter.isPaused,
                "pressure": pressure?.health ?? ["enabled": false]]
    }
}
