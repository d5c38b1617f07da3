import Foundation
import Testing

/// A clock that moves only when the test says so, for code that waits on an injected clock.
///
/// Every sleep is recorded (how long it asked for). In ``Mode/immediate`` a sleep returns at once,
/// as if the time had passed; in ``Mode/manual`` it waits until ``advance(by:)`` moves the clock
/// past its deadline, or its task is cancelled (then it throws `CancellationError`).
final class TestClock: Clock, Sendable {
    struct Instant: InstantProtocol {
        var offset: Duration
        func advanced(by duration: Duration) -> Instant { Instant(offset: offset + duration) }
        func duration(to other: Instant) -> Duration { other.offset - offset }
        static func < (lhs: Instant, rhs: Instant) -> Bool { lhs.offset < rhs.offset }
    }

    enum Mode: Sendable { case immediate, manual }

    private struct Sleeper {
        let deadline: Instant
        let continuation: CheckedContinuation<Void, any Error>
    }

    private struct State {
        var now = Instant(offset: .zero)
        var requested: [Duration] = []
        var sleepers: [UInt64: Sleeper] = [:]
        var nextID: UInt64 = 0
        var cancelledIDs: Set<UInt64> = []
    }

    let mode: Mode
    private let state = Watched(State())

    init(_ mode: Mode = .immediate) { self.mode = mode }

    var now: Instant { state.value.now }
    var minimumResolution: Duration { .zero }

    /// The durations of every sleep so far, in order.
    var requestedSleeps: [Duration] { state.value.requested }
    /// Sleeps waiting for the clock to move (manual mode).
    var pendingSleeps: Int { state.value.sleepers.count }

    func sleep(until deadline: Instant, tolerance: Duration? = nil) async throws {
        let id = state.update { state -> UInt64 in
            state.requested.append(state.now.duration(to: deadline))
            state.nextID += 1
            return state.nextID
        }
        try Task.checkCancellation()
        if mode == .immediate {
            state.update { $0.now = max($0.now, deadline) }
            return
        }
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                let outcome = state.update { state -> Result<Void, any Error>? in
                    if state.cancelledIDs.remove(id) != nil { return .failure(CancellationError()) }
                    if deadline <= state.now { return .success(()) }
                    state.sleepers[id] = Sleeper(deadline: deadline, continuation: continuation)
                    return nil
                }
                if let outcome { continuation.resume(with: outcome) }
            }
        } onCancel: {
            let sleeper = state.update { state -> Sleeper? in
                guard let sleeper = state.sleepers.removeValue(forKey: id) else {
                    state.cancelledIDs.insert(id)
                    return nil
                }
                return sleeper
            }
            sleeper?.continuation.resume(throwing: CancellationError())
        }
    }

    /// Moves the clock forward and wakes every sleep whose deadline has come.
    func advance(by duration: Duration) {
        let due = state.update { state -> [CheckedContinuation<Void, any Error>] in
            state.now = state.now.advanced(by: duration)
            let now = state.now
            let due = state.sleepers.filter { $0.value.deadline <= now }
            for id in due.keys { state.sleepers[id] = nil }
            return due.values.map(\.continuation)
        }
        for continuation in due { continuation.resume() }
    }

    /// Waits until `count` sleeps have been asked for in all.
    @discardableResult
    func waitForSleeps(_ count: Int, sourceLocation: SourceLocation = #_sourceLocation) async -> Bool {
        await state.wait("\(count) sleep(s) on the test clock", sourceLocation: sourceLocation) {
            $0.requested.count >= count
        }
    }
}
