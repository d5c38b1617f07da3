import Synchronization
@testable import WebImage
@testable import WebImageCodecs
@testable import WebImageLoading

/// Helpers for the memory-cache suites.
enum MemoryCacheFixtures {
    /// A still image whose ``Image/memoryCost`` is `4 * width` bytes.
    static func image(width: Int = 1) -> Image {
        Image(bitmap: Bitmap(width: width, height: 1, fill: RGBA(r: 1, g: 2, b: 3)))
    }
}

/// A manual monotonic clock, so time-to-live tests never sleep.
final class ManualClock: Sendable {
    private let origin = ContinuousClock.now
    private let elapsed = Mutex<Duration>(.zero)

    var now: ContinuousClock.Instant { origin + elapsed.withLock { $0 } }

    func advance(by duration: Duration) {
        elapsed.withLock { $0 += duration }
    }
}
