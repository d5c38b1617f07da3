extension AnimatedImagePlayer {
    /// Plays from where playback stands (from the start again once it has ended). The frame due
    /// first is shown at once.
    public func start() {
        let now = clock.now()
        state.withLock { state in
            guard state.phase != .playing else { return }
            if state.phase == .ended { rewind(&state) }
            state.phase = .playing
            updateBuffer(&state)
            if state.isRunning { state.cursor.resume(at: now, rate: state.rate) }
            launchRun(&state)
        }
    }

    /// Holds the frame on screen; ``start()`` goes on from the same instant of it.
    public func pause() {
        let now = clock.now()
        state.withLock { state in
            guard state.phase == .playing else { return }
            if state.isRunning { state.cursor.hold(at: now, rate: state.rate) }
            state.phase = .paused
            cancelRun(&state)
        }
    }

    /// Ends playback and goes back to the start (frame 0, or the last frame in the reverse modes,
    /// of the first loop); the frame on screen is cleared and the buffer space given back.
    public func stop() {
        let waiters = state.withLock { state -> [CheckedContinuation<Void, Never>] in
            cancelRun(&state)
            rewind(&state)
            state.phase = .idle
            state.currentFrame = nil
            releaseBuffer(&state)
            return state.takeEndWaiters()
        }
        for waiter in waiters { waiter.resume() }
    }

    /// Shows frame `index` of loop `loopCount` (counted from 0) now and plays on from there when
    /// playing. An index outside the image is ignored.
    public func seek(toFrame index: Int, loopCount: Int = 0) {
        guard index >= 0, index < source.frameCount else { return }
        let now = clock.now()
        state.withLock { state in
            if state.phase == .ended { state.phase = .paused }
            state.cursor.seek(toFrame: index, loop: loopCount)
            if state.isRunning { state.cursor.resume(at: now, rate: state.rate) }
            if state.phase != .idle { updateBuffer(&state) }
            launchRun(&state)
        }
    }

    /// Waits until playback ends (the last loop, a frame that cannot be decoded) or is stopped;
    /// returns at once when the player is not playing or paused, and when the task is cancelled.
    public func waitUntilEnded() async {
        let id = state.withLock { state -> UInt64 in
            state.nextEndWaitID += 1
            return state.nextEndWaitID
        }
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                let waiting = state.withLock { state -> Bool in
                    guard state.cancelledEndWaits.remove(id) == nil,
                          state.phase == .playing || state.phase == .paused else { return false }
                    state.endWaiters[id] = continuation
                    return true
                }
                if !waiting { continuation.resume() }
            }
        } onCancel: {
            let waiter = state.withLock { state -> CheckedContinuation<Void, Never>? in
                guard let waiter = state.endWaiters.removeValue(forKey: id) else {
                    state.cancelledEndWaits.insert(id)
                    return nil
                }
                return waiter
            }
            waiter?.resume()
        }
    }

    /// Applies a setting: the cursor is held at now, changed, and restarted from now, so the
    /// part of the current frame already played is kept.
    func reschedule(_ change: (inout PlayerState) -> Void) {
        let now = clock.now()
        state.withLock { state in
            if state.isRunning { state.cursor.hold(at: now, rate: state.rate) }
            change(&state)
            guard state.phase == .playing else { return }
            updateBuffer(&state)
            if state.isRunning { state.cursor.resume(at: now, rate: state.rate) }
            launchRun(&state)
        }
    }

    /// Back to the first step of the first loop, with the loop count and mode kept.
    private func rewind(_ state: inout PlayerState) {
        state.cursor = PlaybackCursor(durations: source.durations, mode: state.cursor.mode,
                                      totalLoops: state.cursor.totalLoops)
    }

    /// Sizes the buffer request and the decode-ahead window from ``maxBufferSize``.
    private func updateBuffer(_ state: inout PlayerState) {
        let budget = PlayerBufferBudget(maxBufferSize: state.maxBufferSize, source: source)
        guard budget != state.budget || state.bufferRequest == nil else { return }
        state.budget = budget
        state.bufferRequest = source.animation?.requestBuffer(bytes: budget.requestBytes)
    }

    /// Gives the buffer space back and forgets the frames decoded ahead.
    func releaseBuffer(_ state: inout PlayerState) {
        state.bufferRequest = nil
        state.budget = nil
        decoder.setWindow([])
    }

    /// Stops the running playback task: whatever it does next is ignored.
    private func cancelRun(_ state: inout PlayerState) {
        state.generation += 1
        state.run?.cancel()
    }

    /// Starts a playback task for a new generation, after the previous one has finished (so
    /// handler calls never overlap).
    private func launchRun(_ state: inout PlayerState) {
        let previous = state.run
        cancelRun(&state)
        let generation = state.generation
        let player = WeakPlayer(player: self)
        state.run = Task { [decoder, clock] in
            await previous?.value
            await Self.play(player, generation: generation, decoder: decoder, clock: clock)
        }
    }
}
