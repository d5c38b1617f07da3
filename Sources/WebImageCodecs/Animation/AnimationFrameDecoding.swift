/// Decodes the frames of one animation on request (SDWebImage's `SDAnimatedImageCoder`).
///
/// Implementations keep the canvas between calls, so asking for the frame after the last one
/// costs one frame's decode; asking for an earlier frame restarts from the nearest frame that
/// needs no predecessor. ``AnimatedFrames`` calls one decoder from one thread at a time, so
/// implementations need no locking of their own.
public protocol AnimationFrameDecoding: AnyObject {
    /// Frame `index` (0 ..< frame count), fully composed, at the animation's frame size.
    /// Throws ``WebImageError`` when the frame's data is damaged.
    func decodeFrame(at index: Int) throws -> Bitmap
}

/// What an animation's header says, read without decoding any pixels.
public struct AnimationHeader: Sendable, Hashable {
    /// How many frames play.
    public var frameCount: Int
    /// How many times the animation plays; 0 means forever.
    public var loopCount: Int
    /// Each frame's display time in seconds, by the one rule for every animated format (a delay under
    /// 0.011 s plays as 0.1 s).
    public var durations: [Double]
    /// The size of every decoded frame (after any thumbnail scaling and orientation).
    public var frameSize: PixelSize

    /// A header for `durations.count` frames of `frameSize`.
    public init(loopCount: Int, durations: [Double], frameSize: PixelSize) {
        self.frameCount = durations.count
        self.loopCount = loopCount
        self.durations = durations
        self.frameSize = frameSize
    }
}
