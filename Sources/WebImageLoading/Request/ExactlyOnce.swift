import WebImageCodecs
import Synchronization

/// The library's one exactly-once primitive: it holds a piece of work's receiver (a completion,
/// a continuation, a delivery) until the first final event takes it, and the stage in flight (a
/// query, a request, a task) so that cancelling reaches whatever is running.
///
/// Every operation and token builds on it: ``end()`` hands the receiver to exactly one caller,
/// ``cancel()`` ends the work as cancelled and returns the stage to stop, ``setStage(_:)``
/// refuses (returns false) a stage that arrives after cancellation, so its owner stops it.
/// Receivers and stages are handed out, never called, under the lock. The lock's release and
/// acquire are what order a result's publication before its reading, visibly to
/// ThreadSanitizer too (see ``synchronize()``).
package final class ExactlyOnce<Receiver: Sendable, Stage: Sendable>: Sendable {
    private struct State {
        var receiver: Receiver?
        var stage: Stage?
        var ended: Bool
        var cancelled = false
    }

    private let state: Mutex<State>

    /// Work that will report to `receiver` (nil: work whose owner only needs cancellation).
    package init(_ receiver: Receiver? = nil) {
        state = Mutex(State(receiver: receiver, ended: false))
    }

    /// Work that ended before it began (its one result is sent by the owner at once).
    package init(ended: Void) {
        state = Mutex(State(receiver: nil, ended: true))
    }

    /// True once the work ended: a final result, or cancellation.
    package var isEnded: Bool { state.withLock { $0.ended } }

    /// True once ``cancel()`` ended the work.
    package var isCancelled: Bool { state.withLock { $0.cancelled } }

    /// The receiver while the work has not ended, for an event that more will follow.
    package var receiver: Receiver? { state.withLock { $0.ended ? nil : $0.receiver } }

    /// The stage last recorded; still there after the work ended (for inspection), gone after a
    /// cancellation.
    package var stage: Stage? { state.withLock { $0.stage } }

    /// Changes the receiver in place; false once the work has ended.
    @discardableResult
    package func updateReceiver(_ body: (inout Receiver) -> Void) -> Bool {
        state.withLock { state in
            guard !state.ended, var receiver = state.receiver else { return false }
            body(&receiver)
            state.receiver = receiver
            return true
        }
    }

    /// Records the stage now in flight. False when the work was cancelled: the owner must stop
    /// `stage` itself. A stage recorded after the work ended otherwise is kept for inspection
    /// (its result may have raced ahead of the call that records it).
    @discardableResult
    package func setStage(_ stage: Stage?) -> Bool {
        state.withLock { state in
            guard !state.cancelled else { return false }
            state.stage = stage
            return true
        }
    }

    /// Changes the stage in place (for work with several stages at once, or stages numbered so a
    /// late record cannot replace a newer one). False when the work was cancelled: the owner must
    /// stop what it was adding. After the work ended otherwise the change is kept for inspection.
    @discardableResult
    package func updateStage(_ body: (inout Stage?) -> Void) -> Bool {
        state.withLock { state in
            guard !state.cancelled else { return false }
            body(&state.stage)
            return true
        }
    }

    /// Runs `body` on the stage while the work has not ended and returns its result; nil once the
    /// work ended (a final result or cancellation), when whatever the caller was adding must stop.
    package func withRunningStage<T>(_ body: (inout Stage?) -> T) -> T? {
        state.withLock { state in
            guard !state.ended else { return nil }
            return body(&state.stage)
        }
    }

    /// Ends the work. The first caller gets the receiver (and reports the final result to it);
    /// every later caller, and any caller after ``cancel()``, gets nil.
    package func end() -> Receiver? {
        state.withLock { state in
            guard !state.ended else { return nil }
            state.ended = true
            defer { state.receiver = nil }
            return state.receiver
        }
    }

    /// Ends the work as cancelled. Nil when it had already ended; else the receiver, to report the
    /// cancellation to, and the stage in flight, to stop.
    package func cancel() -> (receiver: Receiver?, stage: Stage?)? {
        state.withLock { state in
            guard !state.ended else { return nil }
            state.ended = true
            state.cancelled = true
            defer { state.receiver = nil; state.stage = nil }
            return (state.receiver, state.stage)
        }
    }

    /// Takes and releases the lock: called by a reader after it learned (through a channel the
    /// sanitizer may not see, such as a continuation resumed before its task suspended) that the
    /// work ended, it orders everything published before ``end()`` before what the reader does next.
    package func synchronize() {
        state.withLock { _ in }
    }
}

/// Connects a cancellation to a stage that may not exist yet: cancelling before the stage arrives
/// cancels it on arrival, and cancelling after the work ended does nothing. The link lets go of the
/// stage once the work ends, so a stage that holds the link (through the callback it reports to)
/// is not kept in a cycle.
package typealias CancellationLink = ExactlyOnce<Void, any WebImageOperation>

extension ExactlyOnce where Receiver == Void, Stage == any WebImageOperation {
    /// Records `stage` while the work runs; cancels it at once when the link was cancelled first,
    /// and drops it when the work already finished.
    package func attach(_ stage: (any WebImageOperation)?) {
        guard let stage else { return }
        if withRunningStage({ $0 = stage }) == nil, isCancelled { stage.cancel() }
    }

    /// Cancels the attached stage, or the one attached later.
    package func cancelStage() {
        cancel()?.stage?.cancel()
    }

    /// Marks the work ended (its result arrived) and lets go of the stage: a later cancellation
    /// does nothing.
    package func finish() {
        _ = end()
        updateStage { $0 = nil }
    }
}
