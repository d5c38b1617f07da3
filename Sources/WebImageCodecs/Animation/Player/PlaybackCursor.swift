/// Where playback stands: the loop, the step within it, and when the current frame began on the
/// player's clock. Moving it is pure arithmetic on durations, so the same clock readings always
/// give the same frames.
struct PlaybackCursor: Sendable {
    /// Display time of each frame in seconds at rate 1.
    let durations: [Double]
    var mode: AnimatedImagePlaybackMode
    /// Loops to play; 0 plays forever.
    var totalLoops: Int
    /// Loops completed so far; the current loop is `loop + 1`.
    private(set) var loop = 0
    private(set) var step = 0
    /// When the current frame began, on the player's clock (meaningful while running).
    private(set) var frameStart: Duration = .zero
    /// Seconds of the current frame already played, at rate 1 (kept while not running).
    private(set) var elapsed: Double = 0
    /// True once the current step's frame has been shown.
    var isShown = false
    /// True once playback is over: the last loop ended, a still image was shown, or a frame
    /// could not be decoded.
    private(set) var hasEnded = false
    /// True once the last loop has played to its end.
    private var finishedLastLoop = false

    init(durations: [Double], mode: AnimatedImagePlaybackMode, totalLoops: Int) {
        self.durations = durations
        self.mode = mode
        self.totalLoops = max(0, totalLoops)
    }

    var frameCount: Int { durations.count }
    /// The frame the current step shows.
    var frameIndex: Int { mode.frameIndex(atStep: step, frameCount: frameCount) }
    /// Loops completed: the loop count a player reports.
    var completedLoops: Int { finishedLastLoop ? loop + 1 : loop }

    private var isFinalLoop: Bool { totalLoops > 0 && loop >= totalLoops - 1 }
    private var stepsThisLoop: Int {
        isFinalLoop ? mode.stepsInFinalLoop(frameCount: frameCount) : mode.stepsPerLoop(frameCount: frameCount)
    }

    /// When the current frame's time is over, at `rate`.
    func frameEnd(rate: Double) -> Duration {
        frameStart + .seconds(durations[frameIndex] / rate)
    }

    /// Starts the clock at `now`: the current frame began `elapsed` seconds (at `rate`) ago.
    mutating func resume(at now: Duration, rate: Double) {
        frameStart = now - .seconds(elapsed / rate)
    }

    /// Stops the clock at `now`, keeping how much of the current frame has played.
    mutating func hold(at now: Duration, rate: Double) {
        let played = (now - frameStart).inSeconds * rate
        elapsed = min(max(0, played), durations[frameIndex])
    }

    /// Moves to the start of loop `loop` at the first step showing frame `index`.
    mutating func seek(toFrame index: Int, loop: Int) {
        self.loop = totalLoops > 0 ? min(max(0, loop), totalLoops - 1) : max(0, loop)
        step = mode.firstStep(showing: index, frameCount: frameCount)
        elapsed = 0
        isShown = false
        hasEnded = false
        finishedLastLoop = false
    }

    /// Switches to `mode`, keeping the frame on screen and the time it has played.
    mutating func change(to mode: AnimatedImagePlaybackMode) {
        let index = frameIndex
        self.mode = mode
        step = mode.firstStep(showing: index, frameCount: frameCount)
    }

    /// Marks playback over (a still image once shown, or a frame that cannot be decoded).
    mutating func end() { hasEnded = true }

    /// What moving the cursor to a later instant passed over.
    struct Advance: Equatable {
        /// Frames whose time passed without their being shown.
        var dropped = 0
        /// The loop counts reached, in order (each a loop handler call).
        var completedLoops: [Int] = []
    }

    /// Moves through every frame whose time is over at `now` (at `rate`); the cursor then stands
    /// on the frame due at `now`, or on the last frame of the last loop when playback has ended.
    mutating func advance(to now: Duration, rate: Double) -> Advance {
        var outcome = Advance()
        while !hasEnded, frameEnd(rate: rate) <= now {
            let end = frameEnd(rate: rate)
            if step + 1 < stepsThisLoop {
                step += 1
            } else if isFinalLoop {
                hasEnded = true
                finishedLastLoop = true
                outcome.completedLoops.append(loop + 1)
                break
            } else {
                loop += 1
                step = 0
                outcome.completedLoops.append(loop)
            }
            if !isShown { outcome.dropped += 1 }
            isShown = false
            frameStart = end
        }
        return outcome
    }

    /// The distinct frames of the next `count` steps from the current one, in play order, up to
    /// the end of the last loop: what is worth decoding ahead.
    func upcomingFrames(_ count: Int) -> [Int] {
        var probe = self
        var frames: [Int] = []
        var seen = Set<Int>()
        var steps = 0
        while frames.count < count, steps < count + frameCount {
            let index = probe.frameIndex
            if seen.insert(index).inserted { frames.append(index) }
            steps += 1
            if probe.step + 1 < probe.stepsThisLoop {
                probe.step += 1
            } else if probe.isFinalLoop || frameCount == 1 {
                break
            } else {
                probe.loop += 1
                probe.step = 0
            }
        }
        return frames
    }
}

extension Duration {
    /// This duration in seconds.
    var inSeconds: Double {
        Double(components.seconds) + Double(components.attoseconds) * 1e-18
    }
}
