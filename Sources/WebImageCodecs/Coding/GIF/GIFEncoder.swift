import CGIF
import Foundation

/// Writes images as GIF89a: one local colour table per frame, a NETSCAPE2.0 loop extension for
/// animations and a graphics control extension for delays and transparency.
struct GIFEncoder {
    let options: EncodeOptions

    func encode(_ image: Image) throws -> Data {
        let frames = options.frames(of: image)
        guard let first = frames.first else {
            throw WebImageError(.encodingFailed, "The image has no frames to encode.")
        }
        let width = first.bitmap.width, height = first.bitmap.height
        guard width <= 0xFFFF, height <= 0xFFFF else {
            throw WebImageError(.encodingFailed, "GIF images are at most 65535 pixels a side; this one is \(first.bitmap.size). Set EncodeOptions.maxPixelSize.")
        }
        guard frames.allSatisfy({ $0.bitmap.size == first.bitmap.size }) else {
            throw WebImageError(.encodingFailed, "All frames of a GIF animation must have the same size.")
        }
        let indexed = try frames.map { try GIFQuantizer.quantize($0.bitmap) }
        let animated = frames.count > 1
        // A frame with holes must not show the previous frame through them, so every frame is
        // cleared ("restore to background") before the next when any frame is transparent.
        let clears = indexed.contains { $0.transparentIndex != nil }

        let writer = try GIFWriter()
        try writer.check("the screen descriptor") { EGifPutScreenDesc($0, Int32(width), Int32(height), 8, 0, nil) }
        if animated {
            try writeLoopExtension(writer, loopCount: min(max(image.loopCount, 0), 0xFFFF))
        }
        for (frame, pixels) in zip(frames, indexed) {
            if animated || pixels.transparentIndex != nil {
                let delay = animated ? Int32(min(max((frame.duration * 100).rounded(), 0), 0xFFFF)) : 0
                try writeControl(writer, delay: delay, disposal: clears ? DISPOSE_BACKGROUND : DISPOSE_DO_NOT,
                                 transparentIndex: pixels.transparentIndex)
            }
            try writeImage(writer, pixels, width: width, height: height)
        }
        return try writer.finish()
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
            row.replaceSubrange(0..<width, with: frame.indices[y * width..<(y + 1) * width])
            try writer.check("row \(y)") { EGifPutLine($0, &row, Int32(width)) }
        }
    }
}
