import Dispatch
import Synchronization
import WebImage

/// An animation decoder for player tests: frame `i` is a solid colour that encodes `i`; it can
/// throw at one frame (a damaged frame) and hold every frame from one index on until released
/// (decoding that falls behind). Counts the frames it decodes.
final class SolidFrameDecoder: AnimationFrameDecoding, Sendable {
    let size: PixelSize
    let failingFrame: Int?
    private let heldFrom: Int?
    private let release = DispatchSemaphore(value: 0)
    private let state = Mutex((released: false, decoded: [Int]()))

    init(size: PixelSize = PixelSize(width: 4, height: 3), failingFrame: Int? = nil, holdingFrom heldFrom: Int? = nil) {
        self.size = size
        self.failingFrame = failingFrame
        self.heldFrom = heldFrom
    }

    /// The colour of frame `index`.
    static func color(of index: Int) -> RGBA { RGBA(r: UInt8(index % 256), g: UInt8(index / 256), b: 200, a: 255) }

    /// The frame index a bitmap made by this decoder shows.
    static func index(of bitmap: Bitmap) -> Int {
        let pixel = bitmap.pixel(x: 0, y: 0)
        return Int(pixel.r) + Int(pixel.g) * 256
    }

    /// Lets held frames decode.
    func releaseHeldFrames() {
        let wasHeld = state.withLock { state -> Bool in
            defer { state.released = true }
            return !state.released
        }
        if wasHeld { release.signal() }
    }

    /// The frames decoded so far, in order.
    var decodedFrames: [Int] { state.withLock { $0.decoded } }

    func decodeFrame(at index: Int) throws -> Bitmap {
        if let heldFrom, index >= heldFrom, !state.withLock({ $0.released }) {
            release.wait()
            release.signal()
        }
        if index == failingFrame { throw WebImageError(.badImageData, "Frame \(index) is damaged.") }
        state.withLock { $0.decoded.append(index) }
        return Bitmap(width: size.width, height: size.height, fill: Self.color(of: index))
    }
}

extension Image {
    /// A lazily decoded animation of `durations.count` frames from `decoder`.
    static func lazyAnimation(durations: [Double], loopCount: Int = 0,
                              decoder: SolidFrameDecoder = SolidFrameDecoder()) throws -> Image {
        let header = AnimationHeader(loopCount: loopCount, durations: durations, frameSize: decoder.size)
        let poster = try decoder.decodeFrame(at: 0)
        let frames = AnimatedFrames(header: header, data: nil, poster: poster, decoder: decoder)
        return Image(animation: frames)
    }

    /// An animation whose frames are all held in memory, frame `i` coloured as the decoder's.
    static func heldAnimation(durations: [Double], loopCount: Int = 0) -> Image {
        let frames = durations.enumerated().map { index, duration in
            ImageFrame(bitmap: Bitmap(width: 4, height: 3, fill: SolidFrameDecoder.color(of: index)), duration: duration)
        }
        return Image(frames: frames, loopCount: loopCount)
    }
}
