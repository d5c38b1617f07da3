/// Writes an animation as an APNG: each frame is compressed by ``PNGEncoder`` and its IDAT data
/// lifted into the animation (frame 0 as the default image's IDAT, the rest as fdAT).
enum APNGEncoder {
    /// The APNG bytes of `frames`, written one frame at a time. Held frames that are all opaque
    /// are written as RGB; a lazily decoded animation is written as RGBA, since knowing would take
    /// a decode of every frame before the first is written.
    static func encode(_ frames: EncodeFrames) throws -> [UInt8] {
        let alpha = !frames.heldFramesAreOpaque
        let loopCount = frames.loopCount
        var writer = PNGWriter()
        var sequence: UInt32 = 0
        for index in 0..<frames.count {
            let frame = try frames.frame(at: index)
            let png = try PNGEncoder.encode(frame.bitmap, withAlpha: alpha)
            try png.withUnsafeBufferPointer { bytes in
                let (header, data) = try parts(of: bytes)
                if index == 0 {
                    writer.appendChunk(PNGChunks.IHDR, parts: [header], of: bytes)
                    let plays = UInt32(clamping: max(loopCount, 0))
                    writer.appendChunk(PNGChunks.acTL, PNGWriter.bigEndian(UInt32(frames.count)) + PNGWriter.bigEndian(plays))
                }
                writer.appendChunk(PNGChunks.fcTL, frameControl(sequence, frame))
                sequence += 1
                if index == 0 {
                    writer.appendChunk(PNGChunks.IDAT, parts: data, of: bytes)
                } else {
                    var payload = PNGWriter.bigEndian(sequence)
                    for range in data { payload.append(contentsOf: bytes[range]) }
                    writer.appendChunk(PNGChunks.fdAT, payload)
                    sequence += 1
                }
            }
        }
        writer.appendChunk(PNGChunks.IEND, [])
        return writer.bytes
    }

    /// The IHDR payload and the IDAT payloads of an encoded PNG.
    private static func parts(of png: UnsafeBufferPointer<UInt8>) throws -> (Range<Int>, [Range<Int>]) {
        var header: Range<Int>?
        var data: [Range<Int>] = []
        for chunk in PNGChunks(png) {
            let payload = chunk.dataOffset..<chunk.dataOffset + chunk.length
            if chunk.type == PNGChunks.IHDR { header = payload }
            if chunk.type == PNGChunks.IDAT { data.append(payload) }
        }
        guard let header, !data.isEmpty else {
            throw WebImageError(.encodingFailed, "The PNG encoder's output has no IHDR or IDAT chunk.")
        }
        return (header, data)
    }

    /// An fcTL payload: the whole canvas, no disposal, source blending, the frame's duration.
    private static func frameControl(_ sequence: UInt32, _ frame: ImageFrame) -> [UInt8] {
        let milliseconds = max(0, (frame.duration * 1000).rounded())
        let (numerator, denominator): (UInt16, UInt16) = milliseconds <= 65535
            ? (UInt16(milliseconds), 1000)
            : (UInt16(min(65535, (frame.duration * 100).rounded())), 100)
        var payload = PNGWriter.bigEndian(sequence)
        payload += PNGWriter.bigEndian(UInt32(frame.bitmap.width)) + PNGWriter.bigEndian(UInt32(frame.bitmap.height))
        payload += PNGWriter.bigEndian(UInt32(0)) + PNGWriter.bigEndian(UInt32(0))
        payload += PNGWriter.bigEndian(numerator) + PNGWriter.bigEndian(denominator)
        payload += [APNGStructure.Dispose.none.rawValue, APNGStructure.Blend.source.rawValue]
        return payload
    }
}
