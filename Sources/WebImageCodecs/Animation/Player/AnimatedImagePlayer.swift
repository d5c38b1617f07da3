import Synchronization

/// Plays an ``Image``'s frames in time, for any toolkit (SDWebImage's `SDAnimatedImagePlayer`
/// without a display link): it tells its frame handler which frame to show and when.
///
/// Time comes from an injected `Clock` (`ContinuousClock` by default; a manual clock in tests).
/// Frames are decoded ahead of the one on screen on a queue of the player's own, within
/// ``maxBufferSize`` bytes of the animation's shared buffer, so two players of one image decode
/// each frame once. When decoding falls behind, the player shows the frame due now and counts the
/// ones it skipped (``droppedFrameCount``) instead of catching up with a burst of late frames.
/// A frame that cannot be decoded ends playback on the last good frame and is reported once to
/// ``errorHandler``.
///
/// Handlers are called one at a time, in order, on the player's playback task (a call under way
/// when ``pause()`` or ``stop()`` returns still finishes). Thread-safe.
public final class AnimatedImagePlayer: Sendable {
    let source: PlaybackSource
    let clock: PlayerClock
    let decoder: FrameDecodeAhead
    let state: Mutex<PlayerState>

    /// A player of `image` (paused on its first frame until ``start()``), timed by `clock`.
    /// A still image is shown once; frames held in memory play as a lazily decoded animation does.
    public init(image: Image, clock: some Clock<Duration> = ContinuousClock()) {
        let source = PlaybackSource(image: image)
        self.source = source
        self.clock = PlayerClock(clock)
        self.decoder = FrameDecodeAhead(source: source)
        let cursor = PlaybackCursor(durations: source.durations, mode: .normal, totalLoops: image.loopCount)
        self.state = Mutex(PlayerState(cursor: cursor))
    }

    deinit {
        state.withLock { $0.run?.cancel() }
    }

    /// The image being played.
    public var image: Image { source.image }

    /// The frame on screen: nil until the first frame is shown, and after ``stop()``.
    public var currentFrame: Bitmap? { state.withLock { $0.currentFrame } }
    /// The index of the frame on screen (of the frame playback starts with before the first one).
    public var currentFrameIndex: Int {
        state.withLock { $0.currentFrame == nil ? $0.cursor.frameIndex : $0.currentFrameIndex }
    }
    /// Loops completed since playback started (``totalLoopCount`` once the last loop has ended).
    public var currentLoopCount: Int { state.withLock { $0.cursor.completedLoops } }
    /// How many frames the image has.
    public var totalFrameCount: Int { source.frameCount }

    /// How many loops to play, 0 for forever; the image's own loop count unless set.
    public var totalLoopCount: Int {
        get { state.withLock { $0.cursor.totalLoops } }
        set { reschedule { $0.cursor.totalLoops = max(0, newValue) } }
    }

    /// Playback speed: 1 as the image says, 2 twice as fast, 0.5 half as fast; 0 holds the
    /// current frame until a positive rate is set (negative and non-finite values count as 0).
    public var playbackRate: Double {
        get { state.withLock { $0.rate } }
        set { reschedule { $0.rate = newValue.isFinite ? max(0, newValue) : 0 } }
    }

    /// The order frames play in. Set before playback, it starts at the mode's first frame; set
    /// later, it keeps the frame on screen.
    public var playbackMode: AnimatedImagePlaybackMode {
        get { state.withLock { $0.cursor.mode } }
        set {
            reschedule { state in
                if state.currentFrame == nil {
                    state.cursor = PlaybackCursor(durations: source.durations, mode: newValue,
                                                  totalLoops: state.cursor.totalLoops)
                } else {
                    state.cursor.change(to: newValue)
                }
            }
        }
    }

    /// Bytes of decoded frames the animation's shared buffer keeps for this player; 0 (the
    /// default) decides from the memory the process may use (``ProcessMemoryLimit``), taking a
    /// fifth of it. The player itself holds the frame on screen and the next one besides.
    public var maxBufferSize: Int {
        get { state.withLock { $0.maxBufferSize } }
        set { reschedule { $0.maxBufferSize = max(0, newValue) } }
    }

    /// Called with the index and pixels of each frame as it is shown.
    public var frameHandler: (@Sendable (_ index: Int, _ frame: Bitmap) -> Void)? {
        get { state.withLock { $0.frameHandler } }
        set { state.withLock { $0.frameHandler = newValue } }
    }

    /// Called with the loop count each time a loop ends.
    public var loopHandler: (@Sendable (_ loopCount: Int) -> Void)? {
        get { state.withLock { $0.loopHandler } }
        set { state.withLock { $0.loopHandler = newValue } }
    }

    /// Called once, with the decode error, when a frame cannot be decoded (playback then ends on
    /// the last good frame).
    public var errorHandler: (@Sendable (any Error) -> Void)? {
        get { state.withLock { $0.errorHandler } }
        set { state.withLock { $0.errorHandler = newValue } }
    }

    /// True between ``start()`` and the end of playback, ``pause()`` or ``stop()``.
    public var isPlaying: Bool { state.withLock { $0.phase == .playing } }
    /// True when the last loop has ended or a frame could not be decoded.
    public var hasEnded: Bool { state.withLock { $0.phase == .ended } }
    /// Frames shown so far (the frame handler's calls).
    public var shownFrameCount: Int { state.withLock { $0.shownFrames } }
    /// Frames whose time passed while decoding was behind or the clock jumped, never shown.
    public var droppedFrameCount: Int { state.withLock { $0.droppedFrames } }
}
