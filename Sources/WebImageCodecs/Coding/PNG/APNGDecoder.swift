import Foundation

/// Decodes an APNG: each frame is wrapped as a standalone PNG for libspng, then composed.
enum APNGDecoder {
    /// Decodes every frame (or only the first, per `options`) of the APNG in `bytes`.
    /// Falls back to a still decode when the file has animation control but no frames.
    /// `data`, when given, is what `bytes` point into: an animation then keeps it and decodes
    /// frames on request (unless `options` asks for the first frame only or for every frame now).
    static func decodeImage(_ bytes: UnsafeBufferPointer<UInt8>, data: Data? = nil,
                            options: DecodeOptions) throws -> Image {
        let apng = try APNGReader.read(bytes)
        guard !apng.frames.isEmpty else { return try PNGDecoder.decodeImage(bytes, options: options) }
        try options.limits.check(apng.canvas, format: .apng)
        let frameCount = options.firstFrameOnly ? 1 : apng.frames.count
        let color = PNGColorChunks.plan(bytes, options: options)
        if options.decodesFramesLazily, apng.frames.count > 1, let data {
            // Frames are held one at a time: only the frame count is limited, not their total.
            guard apng.frames.count <= options.limits.maxFrames else {
                throw WebImageError(.imageTooLarge, "The APNG animation has \(apng.frames.count) frames, over the limit of \(options.limits.maxFrames).")
            }
            return try decodeLazily(data, apng: apng, bytes: bytes, options: options, color: color)
        }
        try options.limits.checkAnimation(apng.canvas, frames: frameCount, format: .apng)

        var composer = APNGComposer(canvas: apng.canvas)
        var bitmaps: [Bitmap] = []
        var durations: [Double] = []
        bitmaps.reserveCapacity(frameCount)
        for (index, frame) in apng.frames.prefix(frameCount).enumerated() {
            let pixels = try decodeFrame(frame, index: index, of: apng, in: bytes, limits: options.limits, color: color)
            bitmaps.append(composer.draw(pixels, control: frame.control))
            durations.append(frame.control.duration)
        }
        let orientation = PNGChunks.exifOrientation(bytes)
        let finished = DecodedOutput.finish(bitmaps, orientation: orientation, options: options)
        let frames = zip(finished, durations).map { ImageFrame(bitmap: $0, duration: finished.count > 1 ? $1 : 0) }
        return Image(frames: frames, loopCount: apng.loopCount, format: frames.count > 1 ? .apng : .png,
                     scale: options.scaleFactor, decodeOptions: options, colorProfile: color.profile)
    }

    /// The structure of the frames of a downloading APNG that have fully arrived, from the chunk
    /// headers alone; nil for bad data.
    static func arrivedStructure(_ data: Data) -> APNGStructure? {
        data.withUnsafeBytes { raw in try? APNGReader.read(raw.bindMemory(to: UInt8.self), arrivedOnly: true) }
    }

    /// `apng`'s frames (read by ``arrivedStructure(_:)`` from `data`) as a partial animation
    /// decoded on demand; nil for fewer than two frames and for a first-frame-only decode.
    static func decodeArrivedFrames(_ data: Data, apng: APNGStructure, options: DecodeOptions) throws -> Image? {
        guard !options.firstFrameOnly, apng.frames.count > 1 else { return nil }
        try options.limits.check(apng.canvas, format: .apng)
        guard apng.declaredFrameCount <= options.limits.maxFrames else {
            throw WebImageError(.imageTooLarge, "The APNG animation declares \(apng.declaredFrameCount) frames, over the limit of \(options.limits.maxFrames).")
        }
        return try data.withUnsafeBytes { raw in
            let bytes = raw.bindMemory(to: UInt8.self)
            return try decodeLazily(data, apng: apng, bytes: bytes, options: options,
                                    color: PNGColorChunks.plan(bytes, options: options), isPartial: true)
        }
    }

    /// An animation whose frames after the first are decoded when asked for. A partial one (the
    /// data still arriving) keeps no data of its own to store.
    private static func decodeLazily(_ data: Data, apng: APNGStructure, bytes: UnsafeBufferPointer<UInt8>,
                                     options: DecodeOptions, color: ColorManagement.Plan,
                                     isPartial: Bool = false) throws -> Image {
        let orientation = PNGChunks.exifOrientation(bytes)
        let decoder = APNGAnimationDecoder(data: data, apng: apng, options: options, color: color,
                                           orientation: orientation)
        let header = AnimationHeader(loopCount: apng.loopCount, durations: apng.frames.map(\.control.duration),
                                     frameSize: decoder.frameSize)
        let poster = try decoder.decodeFrame(at: 0)
        let frames = AnimatedFrames(header: header, data: isPartial ? nil : data, poster: poster, decoder: decoder)
        return Image(animation: frames, format: .apng, scale: options.scaleFactor, decodeOptions: options,
                     isPartial: isPartial, colorProfile: color.profile)
    }

    /// The unblended pixels of one frame (its own rectangle), decoded by libspng.
    static func decodeFrame(_ frame: APNGStructure.Frame, index: Int, of apng: APNGStructure,
                            in bytes: UnsafeBufferPointer<UInt8>, limits: DecodeLimits,
                            color: ColorManagement.Plan) throws -> Bitmap {
        let png = standalonePNG(for: frame, of: apng, in: bytes)
        let pixels: Bitmap
        do {
            pixels = try png.withUnsafeBufferPointer {
                try PNGDecoder.decodeBitmap($0, limits: limits, format: .apng, color: color)
            }
        } catch let error as WebImageError where error.code == .badImageData {
            throw WebImageError.badData("APNG frame \(index) could not be decoded: \(error.message)")
        }
        guard pixels.width == frame.control.width, pixels.height == frame.control.height else {
            throw WebImageError.badData("APNG frame \(index) decoded to the wrong size.")
        }
        return pixels
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
