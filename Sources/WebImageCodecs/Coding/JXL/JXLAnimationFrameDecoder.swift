import CJXL
import Foundation

/// Decodes the frames of an animated JPEG XL one at a time for ``AnimatedFrames``.
///
/// libjxl delivers frames in order, composed (coalesced) onto the canvas, so the frame after the
/// last one costs one frame's decode; a later frame is reached by skipping (libjxl decodes only
/// what the skipped frames' successors refer to), an earlier one by rewinding to the start and
/// skipping. After a failure the decoder is made afresh on the next request.
final class JXLAnimationFrameDecoder: AnimationFrameDecoding {
    private let data: Data
    private let options: DecodeOptions
    private let frameSize: PixelSize
    private var session: JXLDecodeSession?
    /// The colour plan of the first start (the same file gives the same plan every time).
    let color: ColorManagement.Plan
    /// The frame libjxl writes next; nil when the session must be rewound first.
    private var nextIndex: Int? = 0

    /// A decoder over a copy of `data` whose frames come out at `frameSize`.
    init(data: Data, options: DecodeOptions, frameSize: PixelSize) throws {
        self.data = data
        self.options = options
        self.frameSize = frameSize
        let (session, color) = try Self.start(data, options: options)
        self.session = session
        self.color = color
    }

    func decodeFrame(at index: Int) throws -> Bitmap {
        let session = try ready(for: index)
        nextIndex = nil
        let frame = try session.decodeFrame(color: color)
        nextIndex = index + 1
        return frameSize == frame.size ? frame : Resampler.resize(frame, to: frameSize)
    }

    /// The session, positioned so that the next frame it writes is `index`: skipping ahead, or
    /// going back to the start first (a rewind keeps what libjxl learnt of the frames' positions,
    /// so skipping is cheap), or with a new session when the old one cannot restart.
    private func ready(for index: Int) throws -> JXLDecodeSession {
        if let session, let next = nextIndex, next <= index {
            session.skipFrames(index - next)
            return session
        }
        let old = session
        session = nil
        let restarted: JXLDecodeSession
        if let old, (try? Self.restart(old, options: options)) != nil {
            restarted = old
        } else {
            restarted = try Self.start(data, options: options).session
        }
        session = restarted
        restarted.skipFrames(index)
        return restarted
    }

    /// A session over a copy of `data`, past its headers, with its colour plan.
    private static func start(_ data: Data, options: DecodeOptions) throws
        -> (session: JXLDecodeSession, color: ColorManagement.Plan) {
        let session = try JXLDecodeSession(copying: data, events: JXLDecoder.decodeEvents)
        return (session, try readHeaders(session, options: options))
    }

    /// Rewinds `session` to the start and reads its headers again.
    private static func restart(_ session: JXLDecodeSession, options: DecodeOptions) throws {
        try session.rewind()
        try readHeaders(session, options: options)
    }

    /// Reads the basic info and the colour encoding (setting the output space again).
    @discardableResult
    private static func readHeaders(_ session: JXLDecodeSession, options: DecodeOptions) throws -> ColorManagement.Plan {
        try session.readBasicInfo()
        try session.readColorEncoding()
        return JXLColor.plan(session, options: options)
    }
}
