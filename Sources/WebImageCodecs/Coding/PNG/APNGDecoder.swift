/// Decodes an APNG: each frame is wrapped as a standalone PNG for libspng, then composed.
enum APNGDecoder {
    /// Decodes every frame (or only the first, per `options`) of the APNG in `bytes`.
    /// Falls back to a still decode when the file has animation control but no frames.
    static func decodeImage(_ bytes: UnsafeBufferPointer<UInt8>, options: DecodeOptions) throws -> Image {
        let apng = try APNGReader.read(bytes)
        guard !apng.frames.isEmpty else { return try PNGDecoder.decodeImage(bytes, options: options) }
        try options.limits.check(apng.canvas, format: .apng)
        let frameCount = options.firstFrameOnly ? 1 : apng.frames.count
        try options.limits.checkAnimation(apng.canvas, frames: frameCount, format: .apng)

        let color = PNGColorChunks.plan(bytes, options: options)
        var composer = APNGComposer(canvas: apng.canvas)
        var bitmaps: [Bitmap] = []
        var durations: [Double] = []
        bitmaps.reserveCapacity(frameCount)
        for (index, frame) in apng.frames.prefix(frameCount).enumerated() {
            let png = standalonePNG(for: frame, of: apng, in: bytes)
            let pixels: Bitmap
            do {
                pixels = try png.withUnsafeBufferPointer {
                    try PNGDecoder.decodeBitmap($0, limits: options.limits, format: .apng, color: color)
                }
            } catch let error as WebImageError where error.code == .badImageData {
                throw WebImageError.badData("APNG frame \(index) could not be decoded: \(error.message)")
            }
            guard pixels.width == frame.control.width, pixels.height == frame.control.height else {
                throw WebImageError.badData("APNG frame \(index) decoded to the wrong size.")
            }
            bitmaps.append(composer.draw(pixels, control: frame.control))
            durations.append(frame.control.duration)
        }
        let orientation = PNGChunks.exifOrientation(bytes)
        let finished = DecodedOutput.finish(bitmaps, orientation: orientation, options: options)
        let frames = zip(finished, durations).map { ImageFrame(bitmap: $0, duration: finished.count > 1 ? $1 : 0) }
        return Image(frames: frames, loopCount: apng.loopCount, format: frames.count > 1 ? .apng : .png,
                     scale: options.scaleFactor, decodeOptions: options, colorProfile: color.profile)
    }

    /// A complete PNG holding just `frame`: the canvas IHDR resized to the frame, the shared
    /// palette and transparency, the frame's data as one IDAT, and IEND.
    static func standalonePNG(for frame: APNGStructure.Frame, of apng: APNGStructure,
                              in bytes: UnsafeBufferPointer<UInt8>) -> [UInt8] {
        let dataLength = frame.data.reduce(0) { $0 + $1.count }
        var writer = PNGWriter(reservingCapacity: dataLength + 1024)
        var header = Array(bytes[apng.header])
        header.replaceSubrange(0..<4, with: PNGWriter.bigEndian(UInt32(frame.control.width)))
        header.replaceSubrange(4..<8, with: PNGWriter.bigEndian(UInt32(frame.control.height)))
        writer.appendChunk(PNGChunks.IHDR, header)
        if let palette = apng.palette { writer.appendChunk(PNGChunks.PLTE, parts: [palette], of: bytes) }
        if let trns = apng.transparency { writer.appendChunk(PNGChunks.tRNS, parts: [trns], of: bytes) }
        writer.appendChunk(PNGChunks.IDAT, parts: frame.data, of: bytes)
        writer.appendChunk(PNGChunks.IEND, [])
        return writer.bytes
    }
}
