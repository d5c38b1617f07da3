import WebImageCodecs
import WebImageLoading

extension ImageManager {
    /// Shrinks this manager's memory when `monitor` signals pressure, SDWebImage's response to a
    /// memory warning: on each signal, ``imageCache`` drops its
    /// `MemoryPressureSignal/shrinkFraction` (half on a `some` stall or `memory.high` event,
    /// everything on a `full` stall, `memory.max` event or OOM kill) through
    /// `ImageCaching/shrinkMemory(by:)`, and so does `BitmapPool/shared`. Disk entries stay.
    ///
    /// The monitor watches while something observes it: keep the returned observation for as
    /// long as the manager should follow the pressure, and cancel it (or let it go) to stop.
    /// ```swift
    /// let pressure = ImageManager.shared.followMemoryPressure()
    /// ```
    public func followMemoryPressure(_ monitor: MemoryPressureMonitor = .shared) -> MemoryPressureObservation {
        let cache = imageCache
        return monitor.observe { update in
            let fraction = update.signal.shrinkFraction
            guard fraction > 0 else { return }
            cache.shrinkMemory(by: fraction)
            BitmapPool.shared.shrink(by: fraction)
        }
    }
}
