/// The animation structure of an APNG, read from its chunks without decoding any pixels.
struct APNGStructure {
    /// How a frame's area is left after it has been shown (APNG `dispose_op`).
    enum Dispose: UInt8 { case none = 0, background = 1, previous = 2 }
    /// How a frame is drawn onto the canvas (APNG `blend_op`).
    enum Blend: UInt8 { case source = 0, over = 1 }

    /// One `fcTL` chunk: where the frame goes, how long it shows and how it is drawn.
    struct FrameControl {
        var sequence: UInt32
        var width: Int, height: Int, x: Int, y: Int
        var delayNumerator: UInt16, delayDenominator: UInt16
        var dispose: Dispose, blend: Blend

        /// Display time in seconds; a zero denominator means 1/100 s, and short delays follow
        /// ``FrameDelay/displaySeconds(_:)``.
        var duration: Double {
            FrameDelay.displaySeconds(Double(delayNumerator) / Double(delayDenominator == 0 ? 100 : delayDenominator))
        }
    }

    /// One animation frame: its control and where its zlib data sits (IDAT payloads, or fdAT
    /// payloads past their sequence numbers).
    struct Frame {
        var control: FrameControl
        var data: [Range<Int>] = []
    }

    /// The canvas size from IHDR.
    var canvas: PixelSize
    /// The IHDR payload (13 bytes).
    var header: Range<Int>
    /// PLTE and tRNS payloads, shared by every frame.
    var palette: Range<Int>?
    var transparency: Range<Int>?
    /// `acTL` num_frames and num_plays (0 = loop forever).
    var declaredFrameCount = 0
    var loopCount = 0
    var frames: [Frame] = []
}

/// Reads an ``APNGStructure`` from a complete APNG stream, or from the part of one received so far.
enum APNGReader {
    /// The structure of `bytes`. `arrivedOnly`: the bytes may stop anywhere (a download in
    /// progress); the structure then lists only the frames that have fully arrived — those
    /// followed by another frame's control or by IEND — instead of refusing the truncation.
    static func read(_ bytes: UnsafeBufferPointer<UInt8>, arrivedOnly: Bool = false) throws -> APNGStructure {
        var chunks = PNGChunks(bytes)
        guard let ihdr = chunks.next(), ihdr.type == PNGChunks.IHDR, ihdr.length == 13 else {
            throw WebImageError.badData("The PNG data does not start with a valid IHDR chunk.")
        }
        let canvas = PixelSize(width: Int(readUInt32(bytes, ihdr.dataOffset)),
                               height: Int(readUInt32(bytes, ihdr.dataOffset + 4)))
        var apng = APNGStructure(canvas: canvas, header: ihdr.dataOffset..<ihdr.dataOffset + 13)
        var seenImageData = false, defaultImageIsFrame = false, sawEnd = false
        while let chunk = chunks.next() {
            let payload = chunk.dataOffset..<chunk.dataOffset + chunk.length
            switch chunk.type {
            case PNGChunks.acTL where chunk.length == 8 && !seenImageData:
                apng.declaredFrameCount = Int(readUInt32(bytes, chunk.dataOffset))
                apng.loopCount = Int(readUInt32(bytes, chunk.dataOffset + 4))
            case PNGChunks.PLTE where !seenImageData:
                apng.palette = payload
            case PNGChunks.tRNS where !seenImageData:
                apng.transparency = payload
            case PNGChunks.fcTL:
                let control = try frameControl(bytes, chunk, index: apng.frames.count, canvas: canvas)
                if !seenImageData { defaultImageIsFrame = true }
                apng.frames.append(.init(control: control))
            case PNGChunks.IDAT:
                seenImageData = true
                if defaultImageIsFrame, apng.frames.count == 1 { apng.frames[0].data.append(payload) }
            case PNGChunks.fdAT:
                guard chunk.length > 4, !apng.frames.isEmpty else {
                    throw WebImageError.badData("The APNG has an fdAT chunk without a frame control before it.")
                }
                apng.frames[apng.frames.count - 1].data.append(chunk.dataOffset + 4..<payload.upperBound)
            case PNGChunks.IEND:
                sawEnd = true
            default:
                break
            }
            if sawEnd { break }
        }
        if !sawEnd, arrivedOnly {
            // More data chunks of the last frame may still come.
            if !apng.frames.isEmpty { apng.frames.removeLast() }
            return apng
        }
        guard sawEnd else {
            throw WebImageError.badData("The APNG data is truncated: it ends before the IEND chunk.")
        }
        if let empty = apng.frames.firstIndex(where: { $0.data.isEmpty }) {
            throw WebImageError.badData("APNG frame \(empty) has no image data.")
        }
        return apng
    }

    /// Parses and validates one `fcTL` chunk (frame `index`).
    private static func frameControl(_ b: UnsafeBufferPointer<UInt8>, _ chunk: PNGChunks.Chunk, index: Int,
                                     canvas: PixelSize) throws -> APNGStructure.FrameControl {
        guard chunk.length == 26 else {
            throw WebImageError.badData("APNG frame \(index) has an fcTL chunk of \(chunk.length) bytes instead of 26.")
        }
        let o = chunk.dataOffset
        let width = Int(readUInt32(b, o + 4)), height = Int(readUInt32(b, o + 8))
        let x = Int(readUInt32(b, o + 12)), y = Int(readUInt32(b, o + 16))
        guard width > 0, height > 0, x + width <= canvas.width, y + height <= canvas.height else {
            throw WebImageError.badData(
                "APNG frame \(index) covers \(width)x\(height) at (\(x), \(y)), outside the \(canvas) canvas.")
        }
        guard let dispose = APNGStructure.Dispose(rawValue: b[o + 24]),
              let blend = APNGStructure.Blend(rawValue: b[o + 25]) else {
            throw WebImageError.badData("APNG frame \(index) has an unknown dispose or blend operation.")
        }
        return .init(sequence: readUInt32(b, o), width: width, height: height, x: x, y: y,
                     delayNumerator: readUInt16(b, o + 20), delayDenominator: readUInt16(b, o + 22),
                     dispose: dispose, blend: blend)
    }
}
