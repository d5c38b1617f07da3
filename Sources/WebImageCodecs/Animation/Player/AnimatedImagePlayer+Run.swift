/// A reference to a player that does not keep it alive: a playback task ends when nobody holds
/// its player any more.
struct WeakPlayer: Sendable {
    weak var player: AnimatedImagePlayer?
}

extension AnimatedImagePlayer {
    /// What a playback task does next.
    enum RunStep {
        /// Show the current frame; `window` is what to decode ahead, starting with it.
        case show(index: Int, window: [Int])
        /// Wait until the current frame's time is over.
        case sleep(until: Duration)
    }

    /// The playback task: show the frame due, sleep until its time is over, move on; until the
    /// player ends, is paused or stopped (a newer generation), or is released. The player is only
    /// held strongly between awaits.
    static func play(_ weakPlayer: WeakPlayer, generation: UInt64, decoder: FrameDecodeAhead,
                     clock: PlayerClock) async {
        while !Task.isCancelled, let step = weakPlayer.player?.nextStep(generation) {
            switch step {
            case .sleep(let deadline):
                do { try await clock.sleep(deadline) } catch { return }
                weakPlayer.player?.advance(generation)
            case .show(var index, let window):
                decoder.setWindow(window)
                var result: Result<Bitmap, any Error>
                if let frame = decoder.readyFrame(at: index) {
                    result = .success(frame)
                } else {
                    result = await decoder.frame(at: index)
                    // Decoding was behind: if the frame's time has passed meanwhile, show the
                    // frame due now instead (waiting for it once more if needed), not a late one.
                    if case .success = result, let due = weakPlayer.player?.catchUp(generation) {
                        decoder.setWindow(due.window)
                        index = due.index
                        result = if let frame = decoder.readyFrame(at: index) {
                            .success(frame)
                        } else {
                            await decoder.frame(at: index)
                        }
                    }
                }
                if case .failure(let error) = result, error is CancellationError { return }
                weakPlayer.player?.present(result, index: index, generation: generation)
            }
        }
    }

    /// The next step of generation `generation`, or nil when its task has nothing left to do
    /// (and then, if playback has ended, the end is announced).
    func nextStep(_ generation: UInt64) -> RunStep? {
        let (step, waiters) = state.withLock { state -> (RunStep?, [CheckedContinuation<Void, Never>]) in
            guard state.generation == generation else { return (nil, []) }
            let cursor = state.cursor
            if !cursor.isShown {
                let window = cursor.upcomingFrames(state.budget?.windowFrames ?? 1)
                return (.show(index: cursor.frameIndex, window: window), [])
            }
            if source.frameCount == 1 { state.cursor.end() }
            if state.cursor.hasEnded {
                guard state.phase == .playing else { return (nil, []) }
                state.phase = .ended
                releaseBuffer(&state)
                return (nil, state.takeEndWaiters())
            }
            guard state.isRunning else { return (nil, []) }
            return (.sleep(until: cursor.frameEnd(rate: state.rate)), [])
        }
        for waiter in waiters { waiter.resume() }
        return step
    }

    /// Moves the cursor to the frame due now and reports the loops that ended on the way.
    func advance(_ generation: UInt64) {
        let now = clock.now()
        let (loops, handler) = state.withLock { state -> ([Int], (@Sendable (Int) -> Void)?) in
            guard state.generation == generation, state.isRunning else { return ([], nil) }
            let outcome = state.cursor.advance(to: now, rate: state.rate)
            state.droppedFrames += outcome.dropped
            return (outcome.completedLoops, state.loopHandler)
        }
        if let handler { for loop in loops { handler(loop) } }
    }

    /// After a wait for a decode: when the awaited frame's time is already over, moves to the
    /// frame due now and returns it with the frames to decode ahead; nil when the awaited frame
    /// is still due (or playback has ended there).
    func catchUp(_ generation: UInt64) -> (index: Int, window: [Int])? {
        let now = clock.now()
        let (due, loops, handler) = state.withLock { state -> ((index: Int, window: [Int])?, [Int], (@Sendable (Int) -> Void)?) in
            guard state.generation == generation, state.isRunning,
                  state.cursor.frameEnd(rate: state.rate) <= now else { return (nil, [], nil) }
            let before = state.cursor.frameIndex
            let outcome = state.cursor.advance(to: now, rate: state.rate)
            state.droppedFrames += outcome.dropped
            let index = state.cursor.frameIndex
            let due = state.cursor.isShown || index == before
                ? nil : (index, state.cursor.upcomingFrames(state.budget?.windowFrames ?? 1))
            return (due, outcome.completedLoops, state.loopHandler)
        }
        if let handler { for loop in loops { handler(loop) } }
        return due
    }

    /// Shows a decoded frame, or ends playback on the last good frame when it could not be
    /// decoded (reporting the error the first time).
    func present(_ result: Result<Bitmap, any Error>, index: Int, generation: UInt64) {
        switch result {
        case .success(let frame):
            let handler = state.withLock { state -> (@Sendable (Int, Bitmap) -> Void)?? in
                guard state.generation == generation else { return .none }
                state.cursor.isShown = true
                state.currentFrame = frame
                state.currentFrameIndex = index
                state.shownFrames += 1
                return .some(state.frameHandler)
            }
            if case .some(let handler?) = handler { handler(index, frame) }
        case .failure(let error):
            let (handler, waiters) = state.withLock { state -> ((@Sendable (any Error) -> Void)?, [CheckedContinuation<Void, Never>]) in
                guard state.generation == generation else { return (nil, []) }
                state.cursor.end()
                state.cursor.isShown = true
                state.phase = .ended
                state.generation += 1
                releaseBuffer(&state)
                let reported = state.errorReported
                state.errorReported = true
                return (reported ? nil : state.errorHandler, state.takeEndWaiters())
            }
            handler?(error)
            for waiter in waiters { waiter.resume() }
        }
    }
}
