import Synchronization
@testable import WebImageLoading

/// A memory-pressure source a test drives by hand: ``send(_:)`` delivers a signal at once, on
/// the caller's thread, to the monitor that started it.
final class ScriptedPressureSource: MemoryPressureSource {
    private struct State {
        var deliver: (@Sendable (MemoryPressureSignal) -> Void)?
        var starts = 0
        var stops = 0
    }

    private let state = Mutex(State())

    var watching: String { "scripted" }

    /// Times the source was started and stopped.
    var starts: Int { state.withLock { $0.starts } }
    var stops: Int { state.withLock { $0.stops } }
    var isRunning: Bool { state.withLock { $0.deliver != nil } }

    func start(_ deliver: @escaping @Sendable (MemoryPressureSignal) -> Void) {
        state.withLock {
            $0.deliver = deliver
            $0.starts += 1
        }
    }

    func stop() {
        state.withLock {
            $0.deliver = nil
            $0.stops += 1
        }
    }

    /// Delivers `signal` now; false when the source is not running (nobody is told).
    @discardableResult
    func send(_ signal: MemoryPressureSignal) -> Bool {
        guard let deliver = state.withLock({ $0.deliver }) else { return false }
        deliver(signal)
        return true
    }
}
