import CGIF

/// What reading a GIF's records produced before the trailer, a limit or damage stopped it.
struct GIFFrames {
    /// The logical screen size.
    var canvasSize: PixelSize
    /// Fully decoded frames (already resized when a target size was given) with their delays
    /// in centiseconds.
    var frames: [(bitmap: Bitmap, delay: Int)] = []
    /// The NETSCAPE2.0 loop count, when present (0 = forever).
    var loopCount: Int?
    /// With `keepsPartialFirstFrame`: the canvas holding the rows of an unfinished first frame.
    var partialFirstFrame: Bitmap?
    /// Why reading stopped before the trailer (damage or truncation), if it did.
    var stopReason: String?
    /// Set when reading stopped at a sub-image outside what the decoder supports (rather than
    /// damaged): the error to give when no frame came before it.
    var unsupported: WebImageError?
}

/// Walks a GIF record by record (descriptors, extensions, raster rows) with giflib's low-level
/// API, composing frames on a ``GIFCanvas`` and enforcing the decode limits before any pixel
/// memory is allocated.
///
/// Damage after the header ends reading and is reported in ``GIFFrames/stopReason`` with the
/// frames completed so far; exceeding a limit throws.
struct GIFFrameReader {
    var limits: DecodeLimits
    /// Stop after this many frames (1 for first-frame-only decodes).
    var maxFrames = Int.max
    /// The size to resize each finished frame to, given the canvas size (nil = canvas size).
    var frameSize: ((PixelSize) -> PixelSize)?
    /// Keep the rows decoded so far when the first frame is cut short (progressive display).
    var keepsPartialFirstFrame = false
    /// For each sub-image in file order, whether it ends a frame (``GIFFrameGrouping``); a
    /// sub-image past its end, or every one when nil, is a frame of its own.
    var endsFrame: [Bool]?

    enum FrameOutcome {
        case complete
        case failed(rowsDrawn: Int)
    }

    func read(_ bytes: UnsafeRawBufferPointer) throws -> GIFFrames {
        let reader = try GIFReader(bytes: bytes)
        let file = reader.file
        let canvasSize = PixelSize(width: Int(file.pointee.SWidth), height: Int(file.pointee.SHeight))
        try limits.check(canvasSize, format: .gif)
        var result = GIFFrames(canvasSize: canvasSize)
        var canvas = GIFCanvas(width: canvasSize.width, height: canvasSize.height)
        var control = Self.noControl
        let targetSize = frameSize?(canvasSize) ?? canvasSize
        var subImages = 0
        // The delay of drawn sub-images still waiting for the one that ends their frame.
        var pendingDelay: Int?

        records: while result.frames.count < maxFrames {
            var type = UNDEFINED_RECORD_TYPE
            guard DGifGetRecordType(file, &type) == GIF_OK else {
                result.stopReason = reader.lastError
                break
            }
            switch type {
            case IMAGE_DESC_RECORD_TYPE:
                func finishSubImage() {
                    let index = subImages
                    subImages += 1
                    if let endsFrame, index < endsFrame.count, !endsFrame[index] {
                        pendingDelay = Int(control.DelayTime)
                    } else {
                        pendingDelay = nil
                        result.frames.append((Resampler.resize(canvas.bitmap, to: targetSize), Int(control.DelayTime)))
                    }
                }
                // A sub-image with no pixels (zero width or height) draws nothing, so it is whole
                // once its descriptor is read, even when the colour table or raster announced
                // after it is missing (giflib would refuse it): it is skipped here.
                var walker = GIFBlockWalker(bytes: bytes, offset: reader.offset)
                if let (rect, packed) = walker.imageDescriptor(), rect.isEmpty {
                    try limits.checkAnimation(canvasSize, frames: result.frames.count + 1, format: .gif)
                    canvas.beginFrame(in: rect.clipped(toWidth: canvas.width, height: canvas.height),
                                      disposal: control.DisposalMode)
                    finishSubImage()
                    control = Self.noControl
                    guard walker.skipImageData(packed: packed) else {
                        result.stopReason = "the data ends inside an empty sub-image's record"
                        break records
                    }
                    reader.seek(to: walker.offset)
                    continue records
                }
                if let unsupported = Self.unsupportedCodeSize(bytes, descriptorAt: reader.offset) {
                    result.stopReason = unsupported.message
                    result.unsupported = unsupported
                    break records
                }
                guard DGifGetImageDesc(file) == GIF_OK else {
                    result.stopReason = reader.lastError
                    break records
                }
                try limits.checkAnimation(canvasSize, frames: result.frames.count + 1, format: .gif)
                switch try readImage(file, canvas: &canvas, control: control) {
                case .complete:
                    finishSubImage()
                case .failed(let rowsDrawn):
                    result.stopReason = reader.lastError
                    // The canvas now holds part of a sub-image: no complete frame to finish.
                    pendingDelay = nil
                    if keepsPartialFirstFrame, result.frames.isEmpty, rowsDrawn + subImages > 0 {
                        result.partialFirstFrame = canvas.bitmap
                    }
                    break records
                }
                control = Self.noControl
            case EXTENSION_RECORD_TYPE:
                guard readExtension(file, control: &control, loopCount: &result.loopCount) else {
                    result.stopReason = reader.lastError
                    break records
                }
            case TERMINATE_RECORD_TYPE:
                // GIF's grammar allows a file with no image at all: its logical screen, empty.
                if subImages == 0 { result.frames.append((Resampler.resize(canvas.bitmap, to: targetSize), 0)) }
                break records
            default:
                result.stopReason = "unknown record type"
                break records
            }
        }
        // Whole sub-images drawn when reading stopped short of the one that would end their frame
        // (the file ends early, or a frame limit was reached).
        if let pendingDelay, result.frames.count < maxFrames {
            result.frames.append((Resampler.resize(canvas.bitmap, to: targetSize), pendingDelay))
        }
        return result
    }

    /// The refusal of a sub-image whose raster starts its LZW codes wider than GIF's 8-bit
    /// pixels need: a minimum code size of 9 to 11 is a valid LZW stream (a few decoders read it),
    /// but giflib refuses it, as Chrome does. Nil for any other record (larger sizes are damage,
    /// which giflib reports).
    static func unsupportedCodeSize(_ bytes: UnsafeRawBufferPointer, descriptorAt offset: Int) -> WebImageError? {
        var walker = GIFBlockWalker(bytes: bytes, offset: offset)
        guard let (_, packed) = walker.imageDescriptor(), let size = walker.codeSize(packed: packed),
              (9...11).contains(size) else { return nil }
        return WebImageError(.unsupportedFormat,
            "The GIF's image data uses an LZW minimum code size of \(size); GIF's pixels need at most 8, "
            + "and giflib (like Chrome) decodes only 2 to 8, so it is not supported.")
    }

    static let noControl = GraphicsControlBlock(
        DisposalMode: Int32(DISPOSAL_UNSPECIFIED), UserInputFlag: false, DelayTime: 0,
        TransparentColor: Int32(NO_TRANSPARENT_COLOR))

    /// Reads the raster of the image whose descriptor was just read and draws it on `canvas`.
    func readImage(_ file: UnsafeMutablePointer<GifFileType>, canvas: inout GIFCanvas,
                           control: GraphicsControlBlock) throws -> FrameOutcome {
        let desc = file.pointee.Image
        let rect = GIFRect(x: Int(desc.Left), y: Int(desc.Top), width: Int(desc.Width), height: Int(desc.Height))
        let visible = rect.clipped(toWidth: canvas.width, height: canvas.height)
        canvas.beginFrame(in: visible, disposal: control.DisposalMode)
        if rect.isEmpty {
            return skipImageData(file) ? .complete : .failed(rowsDrawn: 0)
        }
        // A frame is decoded row by row into one line buffer, but its rows must still be read,
        // so a frame claiming a huge size is refused from its descriptor.
        try limits.check(PixelSize(width: rect.width, height: rect.height), format: .gif)
        guard let colorMap = desc.ColorMap ?? file.pointee.SColorMap else {
            file.pointee.Error = Int32(D_GIF_ERR_NO_COLOR_MAP)
            return .failed(rowsDrawn: 0)
        }
        let palette = GIFPalette(colorMap: colorMap, transparentIndex: Int(control.TransparentColor))
        // Rows after the last visible one need no decoding (unless interlaced: passes revisit),
        // and a frame entirely off the canvas needs none at all.
        let lastNeededRow = visible.isEmpty ? -1
            : (desc.Interlace ? rect.height - 1 : visible.y + visible.height - 1 - rect.y)
        var line = [UInt8](repeating: 0, count: rect.width)
        var rowsDrawn = 0
        var rowsRead = 0
        for frameRow in GIFInterlace.rowOrder(height: rect.height, interlaced: desc.Interlace) {
            if rowsRead & 63 == 0 { try WorkCancellation.checkCurrent() }
            rowsRead += 1
            if visible.isEmpty || (!desc.Interlace && frameRow > lastNeededRow) {
                return skipImageData(file) ? .complete : .failed(rowsDrawn: rowsDrawn)
            }
            guard DGifGetLine(file, &line, Int32(rect.width)) == GIF_OK else {
                return .failed(rowsDrawn: rowsDrawn)
            }
            let y = rect.y + frameRow
            guard !visible.isEmpty, y >= visible.y, y < visible.y + visible.height else { continue }
            line.withUnsafeBufferPointer { row in
                let from = visible.x - rect.x
                canvas.drawRow(y: y, x: visible.x,
                               indices: UnsafeBufferPointer(rebasing: row[from..<from + visible.width]),
                               palette: palette)
            }
            rowsDrawn += 1
        }
        return .complete
    }

    /// Skips the remaining LZW sub-blocks of the current image; false when the data ends first.
    private func skipImageData(_ file: UnsafeMutablePointer<GifFileType>) -> Bool {
        var block: UnsafeMutablePointer<GifByteType>?
        repeat {
            guard DGifGetCodeNext(file, &block) == GIF_OK else { return false }
        } while block != nil
        return true
    }

    /// Reads one extension: graphics control (delay, disposal, transparency) and the
    /// NETSCAPE2.0 / ANIMEXTS1.0 loop count are kept; the rest is skipped.
    private func readExtension(_ file: UnsafeMutablePointer<GifFileType>,
                               control: inout GraphicsControlBlock, loopCount: inout Int?) -> Bool {
        var code: Int32 = 0
        var block: UnsafeMutablePointer<GifByteType>?
        guard DGifGetExtension(file, &code, &block) == GIF_OK else { return false }
        var isLoopExtension = false
        if let first = block {
            if code == GRAPHICS_EXT_FUNC_CODE, first[0] == 4 {
                var parsed = Self.noControl
                if DGifExtensionToGCB(4, first + 1, &parsed) == GIF_OK { control = parsed }
            } else if code == APPLICATION_EXT_FUNC_CODE, first[0] == 11 {
                let name = String(decoding: UnsafeBufferPointer(start: first + 1, count: 11), as: UTF8.self)
                isLoopExtension = name == "NETSCAPE2.0" || name == "ANIMEXTS1.0"
            }
        }
        while block != nil {
            guard DGifGetExtensionNext(file, &block) == GIF_OK else { return false }
            if isLoopExtension, let sub = block, sub[0] >= 3, sub[1] == 1 {
                loopCount = Int(sub[2]) | Int(sub[3]) << 8
                isLoopExtension = false
            }
        }
        return true
    }
}

/// The order in which a GIF stores its rows.
enum GIFInterlace {
    /// Frame rows in storage order: top to bottom, or the four interlace passes
    /// (every 8th row from 0, every 8th from 4, every 4th from 2, every 2nd from 1).
    static func rowOrder(height: Int, interlaced: Bool) -> [Int] {
        guard interlaced else { return Array(0..<height) }
        let passes = [(0, 8), (4, 8), (2, 4), (1, 2)]
        return passes.flatMap { start, step in Array(stride(from: start, to: height, by: step)) }
    }
}
