import Foundation
import Synchronization

/// A wall clock that moves only when the test says so, for ``ImageManager/currentDate``.
final class TestDateClock: Sendable {
    private let date: Mutex<Date>

    /// A clock reading `start` (default: the real time now, so server dates stay plausible).
    init(_ start: Date = Date()) { date = Mutex(start) }

    var now: Date { date.withLock { $0 } }

    /// Moves the clock forward by `seconds`.
    func advance(_ seconds: TimeInterval) { date.withLock { $0 = $0.addingTimeInterval(seconds) } }

    /// The closure to give the manager.
    var provider: @Sendable () -> Date { { self.now } }
}
