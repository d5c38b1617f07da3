import CGIF

/// A GIF's frames as its records describe them, found by walking the file without decompressing
/// any raster: where each frame's image record starts, its graphics control, its rectangle, and
/// whether it can be drawn without the frames before it.
struct GIFAnimationScan {
    struct Frame {
        /// Offset of the frame's image descriptor record (the `,` byte).
        var offset: Int
        var control: GraphicsControlBlock
        /// The frame's rectangle clipped to the canvas.
        var visible: GIFRect
        /// True when the canvas before this frame is fully known without drawing the earlier
        /// frames (transparent), so decoding may start here.
        var isKeyframe: Bool
    }

    var canvasSize: PixelSize
    var frames: [Frame] = []
    var loopCount: Int?

    /// Walks `bytes`; stops at the trailer, at damage, or when a frame's data is cut short (that
    /// frame is not counted). Throws when the canvas or a frame passes `limits` or there are more
    /// than `limits.maxFrames` frames.
    init(_ bytes: UnsafeRawBufferPointer, limits: DecodeLimits) throws {
        let reader = try GIFReader(bytes: bytes)
        let file = reader.file
        canvasSize = PixelSize(width: Int(file.pointee.SWidth), height: Int(file.pointee.SHeight))
        try limits.check(canvasSize, format: .gif)
        let walker = GIFFrameReader(limits: limits)
        var control = GIFFrameReader.noControl
        records: while true {
            let offset = reader.offset
            var type = UNDEFINED_RECORD_TYPE
            guard DGifGetRecordType(file, &type) == GIF_OK else { break }
            switch type {
            case IMAGE_DESC_RECORD_TYPE:
                guard DGifGetImageDesc(file) == GIF_OK else { break records }
                let desc = file.pointee.Image
                let rect = GIFRect(x: Int(desc.Left), y: Int(desc.Top), width: Int(desc.Width), height: Int(desc.Height))
                if !rect.isEmpty { try limits.check(PixelSize(width: rect.width, height: rect.height), format: .gif) }
                guard walker.skipImageData(file) else { break records }
                guard frames.count < limits.maxFrames else {
                    throw WebImageError(.imageTooLarge, "The GIF animation has more than \(limits.maxFrames) frames, the limit.")
                }
                let visible = rect.clipped(toWidth: canvasSize.width, height: canvasSize.height)
                frames.append(Frame(offset: offset, control: control, visible: visible,
                                    isKeyframe: isKeyframe(visible: visible, control: control)))
                control = GIFFrameReader.noControl
            case EXTENSION_RECORD_TYPE:
                guard walker.readExtension(file, control: &control, loopCount: &loopCount) else { break records }
            default:
                break records
            }
        }
    }

    private func isKeyframe(visible: GIFRect, control: GraphicsControlBlock) -> Bool {
        guard let previous = frames.last else { return true }
        let canvas = GIFRect(x: 0, y: 0, width: canvasSize.width, height: canvasSize.height)
        // The frame before cleared the whole canvas after it was shown.
        if previous.control.DisposalMode == Int32(DISPOSE_BACKGROUND), previous.visible == canvas { return true }
        // This frame paints every pixel, and what follows does not depend on what was under it.
        return visible == canvas && control.TransparentColor == Int32(NO_TRANSPARENT_COLOR)
            && control.DisposalMode != Int32(DISPOSE_PREVIOUS)
    }
}
