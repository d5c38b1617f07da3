import CGIF

/// A GIF's frames as its records describe them, found by walking the file's block structure
/// without decompressing any raster: where each frame's image records start, their graphics
/// controls and rectangles, and whether a frame can be drawn without the frames before it.
///
/// A frame is one or more sub-images (``GIFFrameGrouping``): a sub-image without a delay is drawn
/// together with the ones after it, up to one with a delay, as the GIF specification's delay
/// means and as the public GIF test suites expect (a picture stored as tiles shows whole).
///
/// The walk reads only block headers and length bytes (a jump per 255-byte data sub-block), so a
/// thousand-frame file is walked in a fraction of the time its first frame takes to decode.
struct GIFAnimationScan {
    /// One image record: an image descriptor and its raster.
    struct SubImage {
        /// Offset of the image descriptor record (the `,` byte).
        var offset: Int
        var control: GraphicsControlBlock
        /// The rectangle clipped to the canvas.
        var visible: GIFRect
        /// True when the descriptor's own rectangle has no pixels (zero width or height): the
        /// sub-image draws nothing, and its raster may be missing altogether.
        var isEmpty: Bool
        /// True when the canvas before this sub-image is fully known without drawing the earlier
        /// ones (transparent), so decoding may start here.
        var isKeyframe: Bool
    }

    struct Frame {
        /// The sub-images drawn for this frame, in file order (at least one).
        var subImages: [SubImage]
        /// The graphics control of the frame's last sub-image: its delay is the frame's.
        var control: GraphicsControlBlock { subImages[subImages.count - 1].control }
        /// True when decoding may start at this frame.
        var isKeyframe: Bool { subImages[0].isKeyframe }
    }

    var canvasSize: PixelSize
    var frames: [Frame] = []
    var loopCount: Int?
    /// For each sub-image in file order, whether it ends a frame.
    private(set) var endsFrame: [Bool] = []

    /// Walks `bytes`; stops at the trailer, at damage, or when a sub-image's data is cut short
    /// (that sub-image is not counted, unless it is empty: it then draws nothing either way). Throws when the header is cut short, or the canvas or a
    /// sub-image passes `limits`, or there are more than `limits.maxFrames` sub-images.
    init(_ bytes: UnsafeRawBufferPointer, limits: DecodeLimits) throws {
        var walker = GIFBlockWalker(bytes: bytes)
        guard bytes.count >= 13, let screen = walker.screenDescriptor() else {
            throw WebImageError.badData("The GIF header could not be read: the data is too short.")
        }
        canvasSize = screen
        try limits.check(canvasSize, format: .gif)
        var control = GIFFrameReader.noControl
        var subImages: [SubImage] = []
        records: while let introducer = walker.byte() {
            switch introducer {
            case 0x2C:  // image descriptor
                let offset = walker.offset - 1
                guard let (rect, packed) = walker.imageDescriptor() else { break records }
                // A raster the decoder refuses (GIFFrameReader.unsupportedCodeSize) ends the walk as damage does.
                var peek = walker
                if !rect.isEmpty, let size = peek.codeSize(packed: packed), (9...11).contains(size) { break records }
                // An empty sub-image is whole once its descriptor is read (it draws nothing);
                // a sub-image with pixels only once its raster is.
                let dataComplete = walker.skipImageData(packed: packed)
                guard dataComplete || rect.isEmpty else { break records }
                if !rect.isEmpty { try limits.check(PixelSize(width: rect.width, height: rect.height), format: .gif) }
                guard subImages.count < limits.maxFrames else {
                    throw WebImageError(.imageTooLarge, "The GIF animation has more than \(limits.maxFrames) frames, the limit.")
                }
                let visible = rect.clipped(toWidth: canvasSize.width, height: canvasSize.height)
                subImages.append(SubImage(offset: offset, control: control, visible: visible, isEmpty: rect.isEmpty,
                                          isKeyframe: isKeyframe(visible: visible, control: control, after: subImages.last)))
                control = GIFFrameReader.noControl
                guard dataComplete else { break records }
            case 0x21:  // extension
                guard walker.extensionBlock(control: &control, loopCount: &loopCount) else { break records }
            default:  // the trailer (0x3B), or damage
                break records
            }
        }
        endsFrame = GIFFrameGrouping.endsFrame(subImages.map { ($0.control.DelayTime, $0.visible) },
                                               canvas: canvasSize, hasLoopExtension: loopCount != nil)
        var group: [SubImage] = []
        for (index, subImage) in subImages.enumerated() {
            group.append(subImage)
            if endsFrame[index] {
                frames.append(Frame(subImages: group))
                group = []
            }
        }
    }

    private func isKeyframe(visible: GIFRect, control: GraphicsControlBlock, after previous: SubImage?) -> Bool {
        guard let previous else { return true }
        let canvas = GIFRect(x: 0, y: 0, width: canvasSize.width, height: canvasSize.height)
        // The sub-image before cleared the whole canvas after it was shown.
        if previous.control.DisposalMode == Int32(DISPOSE_BACKGROUND), previous.visible == canvas { return true }
        // This sub-image paints every pixel, and what follows does not depend on what was under it.
        return visible == canvas && control.TransparentColor == Int32(NO_TRANSPARENT_COLOR)
            && control.DisposalMode != Int32(DISPOSE_PREVIOUS)
    }
}

/// Reads a GIF's blocks from memory: the screen descriptor, image descriptors, extensions, and
/// data sub-blocks (skipped by their length bytes). Every read is bounds-checked; a read past the
/// end answers nil or false.
struct GIFBlockWalker {
    let bytes: UnsafeRawBufferPointer
    private(set) var offset = 0

    init(bytes: UnsafeRawBufferPointer, offset: Int = 0) {
        self.bytes = bytes
        self.offset = offset
    }

    mutating func byte() -> UInt8? {
        guard offset < bytes.count else { return nil }
        defer { offset += 1 }
        return bytes[offset]
    }

    private mutating func littleEndian16() -> Int? {
        guard offset + 2 <= bytes.count else { return nil }
        defer { offset += 2 }
        return Int(bytes[offset]) | Int(bytes[offset + 1]) << 8
    }

    private mutating func skip(_ count: Int) -> Bool {
        guard offset + count <= bytes.count else { return false }
        offset += count
        return true
    }

    /// The signature and logical screen descriptor, and the global colour table skipped: the
    /// screen size, or nil when the header is not GIF or is cut short.
    mutating func screenDescriptor() -> PixelSize? {
        guard bytes.count >= 13, bytes[0] == 0x47, bytes[1] == 0x49, bytes[2] == 0x46 else { return nil }  // "GIF"
        offset = 6
        guard let width = littleEndian16(), let height = littleEndian16(), let packed = byte(),
              skip(2) else { return nil }
        if packed & 0x80 != 0, !skip(3 << (Int(packed & 0x07) + 1)) { return nil }
        return PixelSize(width: width, height: height)
    }

    /// The rest of an image descriptor (after `,`): the frame's rectangle and the packed flags
    /// byte, or nil when cut short.
    mutating func imageDescriptor() -> (rect: GIFRect, packed: UInt8)? {
        guard let x = littleEndian16(), let y = littleEndian16(), let width = littleEndian16(),
              let height = littleEndian16(), let packed = byte() else { return nil }
        return (GIFRect(x: x, y: y, width: width, height: height), packed)
    }

    /// The LZW minimum code size after an image descriptor with flags `packed` (past its local
    /// colour table), or nil when the data ends first.
    mutating func codeSize(packed: UInt8) -> UInt8? {
        if packed & 0x80 != 0, !skip(3 << (Int(packed & 0x07) + 1)) { return nil }
        return byte()
    }

    /// Skips what follows an image descriptor with flags `packed`: its local colour table, the
    /// LZW code size and the raster's sub-blocks; false when the data ends first.
    mutating func skipImageData(packed: UInt8) -> Bool {
        if packed & 0x80 != 0, !skip(3 << (Int(packed & 0x07) + 1)) { return false }
        return skipSubBlocks(afterCodeSize: true)
    }

    /// Skips data sub-blocks up to and including the zero-length terminator (after the LZW code
    /// size byte for image data); false when the data ends first.
    mutating func skipSubBlocks(afterCodeSize: Bool = false) -> Bool {
        if afterCodeSize, !skip(1) { return false }
        skipFullSubBlocks()
        while let length = byte() {
            if length == 0 { return true }
            guard skip(Int(length)) else { return false }
        }
        return false
    }

    /// Skips runs of full (255-byte) sub-blocks eight at a time. The eight length bytes are read
    /// at fixed strides from `offset`, not each from the one before, so the memory system fetches
    /// them together: a long frame's walk waits for memory once per run instead of once per block.
    private mutating func skipFullSubBlocks() {
        let stride = 256, run = 8 * stride
        while offset + run < bytes.count {
            var lengths: UInt8 = 0xFF
            for block in 0..<8 { lengths &= bytes[offset + block * stride] }
            guard lengths == 0xFF else { return }
            offset += run
        }
    }

    /// The rest of an extension (after `!`): a graphics control extension sets `control`, a
    /// NETSCAPE2.0 / ANIMEXTS1.0 block sets `loopCount`; others are skipped. False when cut short.
    mutating func extensionBlock(control: inout GraphicsControlBlock, loopCount: inout Int?) -> Bool {
        guard let label = byte() else { return false }
        let start = offset
        guard let first = byte() else { return false }
        if label == 0xF9, first == 4, offset + 4 <= bytes.count {
            let packed = bytes[offset]
            control = GraphicsControlBlock(
                DisposalMode: Int32((packed >> 2) & 0x07), UserInputFlag: packed & 0x02 != 0,
                DelayTime: Int32(bytes[offset + 1]) | Int32(bytes[offset + 2]) << 8,
                TransparentColor: packed & 0x01 != 0 ? Int32(bytes[offset + 3]) : Int32(NO_TRANSPARENT_COLOR))
        } else if label == 0xFF, first == 11, offset + 11 <= bytes.count {
            let name = String(decoding: UnsafeRawBufferPointer(rebasing: bytes[offset..<offset + 11]), as: UTF8.self)
            if name == "NETSCAPE2.0" || name == "ANIMEXTS1.0", offset + 11 + 4 <= bytes.count {
                let sub = offset + 11
                if bytes[sub] >= 3, bytes[sub + 1] == 1 {
                    loopCount = Int(bytes[sub + 2]) | Int(bytes[sub + 3]) << 8
                }
            }
        }
        offset = start
        return skipSubBlocks()
    }
}
