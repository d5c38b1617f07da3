import CGIF
import Foundation

/// Writes images as GIF89a: one local colour table per frame, a NETSCAPE2.0 loop extension for
/// animations and a graphics control extension for delays and transparency.
struct GIFEncoder {
    let options: EncodeOptions

    /// Writes one frame at a time, quantising one frame ahead: a frame's disposal depends on
    /// whether the next has holes, so a lazily decoded animation is never held whole.
    func encode(_ image: Image) throws -> Data {
        let frames = options.encodeFrames(of: image)
        let width = frames.size.width, height = frames.size.height
        guard width <= 0xFFFF, height <= 0xFFFF else {
            throw WebImageError(.encodingFailed, "GIF images are at most 65535 pixels a side; this one is \(frames.size). Set EncodeOptions.maxPixelSize.")
        }
        let animated = frames.isAnimated
        let writer = try GIFWriter()
        try writer.check("the screen descriptor") { EGifPutScreenDesc($0, Int32(width), Int32(height), 8, 0, nil) }
        if animated {
            try writeLoopExtension(writer, loopCount: min(max(frames.loopCount, 0), 0xFFFF))
        }
        let first = try quantizedFrame(frames, 0)
        var current = first
        for index in 0..<frames.count {
            let next = index + 1 < frames.count ? try quantizedFrame(frames, index + 1) : nil
            if animated || current.pixels.transparentIndex != nil {
                let delay = animated ? Int32(min(max((current.duration * 100).rounded(), 0), 0xFFFF)) : 0
                // A frame with holes must not show the one before through them: the frame before
                // a transparent one (the last before the first, when looping) is cleared after
                // it is shown ("restore to background").
                let following = next ?? first
                let clears = animated && following.pixels.transparentIndex != nil
                try writeControl(writer, delay: delay, disposal: clears ? DISPOSE_BACKGROUND : DISPOSE_DO_NOT,
                                 transparentIndex: current.pixels.transparentIndex)
            }
            try writeImage(writer, current.pixels, width: width, height: height)
            if let next { current = next }
        }
        return try writer.finish()
    }

    private func quantizedFrame(_ frames: EncodeFrames, _ index: Int) throws -> (pixels: GIFIndexedFrame, duration: Double) {
        let frame = try frames.frame(at: index)
        try WorkCancellation.checkCurrent()
        return (try GIFQuantizer.quantize(frame.bitmap), frame.duration)
    }

    private func writeLoopExtension(_ writer: GIFWriter, loopCount: Int) throws {
        let name = Array("NETSCAPE2.0".utf8)
        let loop: [UInt8] = [1, UInt8(loopCount & 0xFF), UInt8(loopCount >> 8)]
        try writer.check("the loop extension") { EGifPutExtensionLeader($0, APPLICATION_EXT_FUNC_CODE) }
        try writer.check("the loop extension") { EGifPutExtensionBlock($0, Int32(name.count), name) }
        try writer.check("the loop extension") { EGifPutExtensionBlock($0, Int32(loop.count), loop) }
        try writer.check("the loop extension") { EGifPutExtensionTrailer($0) }
    }

    private func writeControl(_ writer: GIFWriter, delay: Int32, disposal: Int32, transparentIndex: Int?) throws {
        var control = GraphicsControlBlock(DisposalMode: disposal, UserInputFlag: false, DelayTime: delay,
                                           TransparentColor: Int32(transparentIndex ?? Int(NO_TRANSPARENT_COLOR)))
        var bytes = [GifByteType](repeating: 0, count: 4)
        let length = EGifGCBToExtension(&control, &bytes)
        try writer.check("a graphics control extension") {
            EGifPutExtension($0, GRAPHICS_EXT_FUNC_CODE, Int32(length), bytes)
        }
    }

    private func writeImage(_ writer: GIFWriter, _ frame: GIFIndexedFrame, width: Int, height: Int) throws {
        guard let map = GifMakeMapObject(Int32(frame.colors.count), frame.colors) else {
            throw WebImageError(.encodingFailed, "giflib could not make a \(frame.colors.count)-colour table.")
        }
        defer { GifFreeMapObject(map) }
        try writer.check("an image descriptor") {
            EGifPutImageDesc($0, 0, 0, Int32(width), Int32(height), false, map)
        }
        var row = [GifPixelType](repeating: 0, count: width)
        for y in 0..<height {
            if y & 63 == 0 { try WorkCancellation.checkCurrent() }
            row.replaceSubrange(0..<width, with: frame.indices[y * width..<(y + 1) * width])
            try writer.check("row \(y)") { EGifPutLine($0, &row, Int32(width)) }
        }
    }
}
