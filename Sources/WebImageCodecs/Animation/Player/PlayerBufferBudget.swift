/// How many bytes of decoded frames a player keeps ahead (SDWebImage's `maxBufferSize`, whose 0
/// means "decide from the memory there is").
struct PlayerBufferBudget: Equatable {
    /// Bytes asked of the animation's shared buffer.
    let requestBytes: Int
    /// How many frames, the one on screen included, are decoded ahead: what the budget holds,
    /// but at least the next frame too, so decoding overlaps display even with no buffer.
    let windowFrames: Int

    /// The share of the process's memory an automatic budget takes (SDWebImage takes a fifth of
    /// the device's memory).
    static let automaticShare: UInt64 = 5

    /// The budget for `source` with `maxBufferSize` bytes (0: a fifth of `availableMemory()`).
    init(maxBufferSize: Int, source: PlaybackSource,
         availableMemory: () -> UInt64 = { ProcessMemoryLimit().availableBytes }) {
        let frameBytes = max(1, source.frameByteCount)
        let budget = maxBufferSize > 0
            ? maxBufferSize
            : Int(clamping: availableMemory() / Self.automaticShare)
        // The poster is held by the image itself, so the buffer never needs more than the rest.
        let lazyFrames = source.animation == nil ? 0 : source.frameCount - 1
        requestBytes = lazyFrames <= budget / frameBytes ? lazyFrames * frameBytes : budget
        windowFrames = min(source.frameCount, max(2, budget / frameBytes))
    }
}
