/// Everything an ``AnimatedImagePlayer`` changes over time, kept under its lock.
struct PlayerState {
    enum Phase: Equatable {
        /// Never started, or stopped: at the start of the first loop.
        case idle
        case playing
        case paused
        /// The last loop ended, or a frame could not be decoded.
        case ended
    }

    var cursor: PlaybackCursor
    var phase = Phase.idle
    var rate = 1.0
    var maxBufferSize = 0
    var budget: PlayerBufferBudget?
    var bufferRequest: AnimatedFrames.BufferRequest?

    var currentFrame: Bitmap?
    var currentFrameIndex = 0
    var shownFrames = 0
    var droppedFrames = 0
    var errorReported = false

    /// Bumped by every control call: a run of an older generation changes nothing.
    var generation: UInt64 = 0
    var run: Task<Void, Never>?
    var endWaiters: [UInt64: CheckedContinuation<Void, Never>] = [:]
    var cancelledEndWaits: Set<UInt64> = []
    var nextEndWaitID: UInt64 = 0

    var frameHandler: (@Sendable (Int, Bitmap) -> Void)?
    var loopHandler: (@Sendable (Int) -> Void)?
    var errorHandler: (@Sendable (any Error) -> Void)?

    /// True while the clock moves the cursor.
    var isRunning: Bool { phase == .playing && rate > 0 }

    /// Takes the waiters of ``AnimatedImagePlayer/waitUntilEnded()`` to resume.
    mutating func takeEndWaiters() -> [CheckedContinuation<Void, Never>] {
        defer { endWaiters.removeAll() }
        return Array(endWaiters.values)
    }
}
