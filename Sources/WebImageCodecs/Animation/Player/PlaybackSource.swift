/// The frames a player shows: an image's lazily decoded animation, or frames it already holds.
struct PlaybackSource: Sendable {
    let image: Image
    /// Display time of each frame in seconds, by the one rule for every format (a delay under
    /// 0.011 s plays as 0.1 s), so frames built in memory with no duration still advance.
    let durations: [Double]

    init(image: Image) {
        self.image = image
        durations = (0..<image.frameCount).map { FrameDelay.displaySeconds(image.frameDuration(at: $0)) }
    }

    var frameCount: Int { durations.count }
    /// The lazily decoded frames, nil when every frame is held.
    var animation: AnimatedFrames? { image.animation }
    /// Bytes one decoded frame takes.
    var frameByteCount: Int { image.pixelSize.area * 4 }

    /// Frame `index`: held, from the shared buffer, or decoded now.
    func frame(at index: Int) throws -> Bitmap { try image.frame(at: index).bitmap }
}
