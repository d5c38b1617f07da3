import Foundation
import Synchronization

/// The frames of an animation, decoded when asked for rather than all at once (SDWebImage 5's
/// `SDAnimatedImage`): the compressed data, a decoder that carries the canvas from frame to
/// frame, and a buffer of decoded frames bounded in bytes.
///
/// Frame count, loop count and durations come from the header, so reading them decodes nothing.
/// One instance is shared by everything that shows the image: two players of the same cached
/// image use the same buffer (SDWebImage's frame pool) instead of decoding twice. Thread-safe.
public final class AnimatedFrames: Sendable {
    /// What the header says: frame count, loop count, durations, frame size.
    public let header: AnimationHeader
    /// The compressed bytes the frames are decoded from (nil for frames derived by a transform).
    public let data: Data?
    /// Frame 0, held for the image's whole life: what a still-image consumer sees.
    public let poster: Bitmap
    private let core: AnimatedFramesCore

    /// Frames decoded on request by `decoder`, which has just produced `poster` (frame 0).
    /// `bufferLimit` bytes of other decoded frames are kept (0: none beyond what a player asks
    /// for; players raise it while they play).
    public init(header: AnimationHeader, data: Data?, poster: Bitmap,
                decoder: sending any AnimationFrameDecoding, bufferLimit: Int = 0) {
        precondition(header.frameCount > 0, "an animation needs at least one frame")
        precondition(poster.size == header.frameSize, "the poster must have the frame size")
        self.header = header
        self.data = data
        self.poster = poster
        self.core = AnimatedFramesCore(decoder: decoder, bufferLimit: max(0, bufferLimit))
    }

    private init(header: AnimationHeader, data: Data?, poster: Bitmap, core: AnimatedFramesCore) {
        self.header = header
        self.data = data
        self.poster = poster
        self.core = core
    }

    /// The same frames and buffer with another loop count.
    func withLoopCount(_ loopCount: Int) -> AnimatedFrames {
        var header = header
        header.loopCount = loopCount
        return AnimatedFrames(header: header, data: data, poster: poster, core: core)
    }

    /// Number of frames.
    public var frameCount: Int { header.frameCount }
    /// How many times the animation plays; 0 means forever.
    public var loopCount: Int { header.loopCount }
    /// The size of every frame.
    public var frameSize: PixelSize { header.frameSize }
    /// Display time of frame `index` in seconds.
    public func duration(at index: Int) -> Double { header.durations[index] }
    /// Bytes one decoded frame takes.
    public var frameByteCount: Int { header.frameSize.area * 4 }

    /// Frame `index`, from the buffer when held, else decoded now (and held if the buffer has
    /// room). Throws when the frame's data is damaged.
    public func frame(at index: Int) throws -> Bitmap {
        precondition(index >= 0 && index < frameCount, "frame \(index) of \(frameCount)")
        if index == 0 { return poster }
        return try core.frame(at: index, size: header.frameSize)
    }

    /// True when `index` is held decoded, so ``frame(at:)`` returns without decoding.
    public func isFrameLoaded(at index: Int) -> Bool {
        index == 0 || core.buffer.withLock { $0.frames.contains(index) }
    }

    /// Decodes every frame now and keeps them all (SDWebImage's `preloadAllFrames`): playback
    /// then decodes nothing. Checked against `limits` first, so a huge animation is refused
    /// rather than held. Throws on a damaged frame, keeping the frames before it.
    public func preloadAllFrames(limits: DecodeLimits = .default) throws {
        try limits.checkAnimation(frameSize, frames: frameCount, format: .undefined)
        core.buffer.withLock { $0.preloaded = true; $0.updateLimit() }
        for index in 1..<frameCount where !isFrameLoaded(at: index) { _ = try frame(at: index) }
    }

    /// Drops every held frame but the poster and returns to the bounded buffer (SDWebImage's
    /// `unloadAllFrames`).
    public func unloadAllFrames() {
        core.buffer.withLock { state in
            state.preloaded = false
            state.frames.removeAll()
            state.updateLimit()
        }
    }

    /// True when every frame is held decoded (SDWebImage's `isAllFramesLoaded`).
    public var isAllFramesLoaded: Bool { core.buffer.withLock { $0.frames.count == frameCount - 1 } }

    /// Bytes of decoded frames held now, besides the poster.
    public var heldBytes: Int { core.buffer.withLock { $0.frames.bytes } }

    /// The most bytes the buffer may hold now.
    public var bufferLimit: Int { core.buffer.withLock { $0.frames.limit } }

    /// How many frame decodes have run in all (a buffer hit decodes nothing; the poster's decode
    /// is not counted).
    public var decodeCount: Int { core.buffer.withLock { $0.decodedFrames } }

    /// Asks the buffer to hold up to `bytes` while the returned token lives (a player's buffer
    /// size). The buffer holds the largest of all live requests.
    public func requestBuffer(bytes: Int) -> BufferRequest {
        BufferRequest(core: core, id: core.addRequest(bytes: bytes))
    }

    /// A claim on buffer space; letting it go lets the buffer shrink again.
    public final class BufferRequest: Sendable {
        private let core: AnimatedFramesCore
        private let id: UInt64

        fileprivate init(core: AnimatedFramesCore, id: UInt64) {
            self.core = core
            self.id = id
        }

        deinit { core.endRequest(id) }
    }
}

/// The decoder and the frame buffer, shared by every ``AnimatedFrames`` view of one animation.
private final class AnimatedFramesCore: Sendable {
    struct BufferState {
        var frames: FrameBuffer
        var defaultLimit: Int
        var requests: [UInt64: Int] = [:]
        var nextRequest: UInt64 = 0
        var decodedFrames = 0
        var preloaded = false

        mutating func updateLimit() {
            frames.limit = preloaded ? Int.max : max(defaultLimit, requests.values.max() ?? 0)
            frames.trim()
        }
    }

    /// The decoder, used only with `decoder`'s lock held.
    final class DecoderBox {
        let decoder: any AnimationFrameDecoding
        init(_ decoder: any AnimationFrameDecoding) { self.decoder = decoder }
    }

    let decoder: Mutex<DecoderBox>
    let buffer: Mutex<BufferState>

    init(decoder: sending any AnimationFrameDecoding, bufferLimit: Int) {
        self.decoder = Mutex(DecoderBox(decoder))
        self.buffer = Mutex(BufferState(frames: FrameBuffer(limit: bufferLimit), defaultLimit: bufferLimit))
    }

    func frame(at index: Int, size: PixelSize) throws -> Bitmap {
        if let held = buffer.withLock({ $0.frames.frame(at: index) }) { return held }
        return try decoder.withLock { box -> Bitmap in
            // Another thread may have decoded it while this one waited for the decoder.
            if let held = buffer.withLock({ $0.frames.frame(at: index) }) { return held }
            let bitmap = try box.decoder.decodeFrame(at: index)
            guard bitmap.size == size else {
                throw WebImageError.badData("Frame \(index) decoded to \(bitmap.size), not the animation's \(size).")
            }
            buffer.withLock { state in
                state.decodedFrames += 1
                state.frames.insert(bitmap, at: index)
            }
            return bitmap
        }
    }

    func addRequest(bytes: Int) -> UInt64 {
        buffer.withLock { state in
            state.nextRequest += 1
            state.requests[state.nextRequest] = max(0, bytes)
            state.updateLimit()
            return state.nextRequest
        }
    }

    func endRequest(_ id: UInt64) {
        buffer.withLock { state in
            state.requests[id] = nil
            state.updateLimit()
        }
    }
}
