import CJXL

/// What an animated JPEG XL says about its frames, read from the frame headers alone: libjxl
/// walks the file without decoding any pixels. Frames are counted as shown (zero-duration
/// frames are coalesced into the frame they build, as the decoder delivers them).
struct JXLAnimationScan {
    /// Each shown frame's display time in seconds (ticks × `tps_denominator` / `tps_numerator`,
    /// by the library's one rule for very short delays, ``FrameDelay``).
    let durations: [Double]
    /// How many times the animation plays; 0 means forever.
    let loopCount: Int

    var frameCount: Int { durations.count }

    /// Scans `bytes`; more than `maxFrames` frames is refused as soon as the next one is seen.
    init(_ bytes: UnsafeBufferPointer<UInt8>, maxFrames: Int) throws {
        let session = try JXLDecodeSession(bytes, events: [JXL_DEC_BASIC_INFO, JXL_DEC_FRAME])
        let animation = try session.readBasicInfo().animation
        let secondsPerTick = animation.tps_numerator > 0
            ? Double(animation.tps_denominator) / Double(animation.tps_numerator) : 0
        var durations: [Double] = []
        while let header = try session.nextFrameHeader() {
            guard durations.count < maxFrames else {
                throw WebImageError(.imageTooLarge,
                    "The JPEG XL animation has more than \(maxFrames) frames, over the limit of \(maxFrames).")
            }
            durations.append(FrameDelay.displaySeconds(Double(header.duration) * secondsPerTick))
        }
        guard !durations.isEmpty else { throw WebImageError.badData("The JPEG XL animation has no frames.") }
        self.durations = durations
        self.loopCount = Int(animation.num_loops)
    }
}
