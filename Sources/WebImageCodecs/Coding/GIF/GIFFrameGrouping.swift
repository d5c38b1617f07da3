/// Which of a GIF's sub-images are frames of their own, and which are drawn together with the
/// sub-images after them.
///
/// A GIF's delay says how long to wait after drawing a sub-image; without one (no graphics
/// control, or a delay of 0) the next sub-image is drawn at once, so the sub-images up to the
/// next one with a delay make one picture: a picture stored as tiles (one sub-image each, to have
/// more than 256 colours) shows whole, as the public GIF test suites expect. Browsers instead show
/// each sub-image for 0.1 s; their reading is kept where it is the only sensible one: when no
/// sub-image has a delay and the file has a loop extension, or every sub-image covers the whole
/// canvas (then each replaces the last, which only makes sense as an animation), every sub-image
/// is a frame shown for 0.1 s (``FrameDelay``).
enum GIFFrameGrouping {
    /// For each sub-image (its delay in centiseconds and its rectangle clipped to the canvas),
    /// whether it ends a frame. The last sub-image always does.
    static func endsFrame(_ subImages: [(delay: Int32, visible: GIFRect)], canvas: PixelSize,
                          hasLoopExtension: Bool) -> [Bool] {
        guard !subImages.isEmpty else { return [] }
        let whole = GIFRect(x: 0, y: 0, width: canvas.width, height: canvas.height)
        let anyDelay = subImages.contains { $0.delay > 0 }
        if !anyDelay, hasLoopExtension || subImages.allSatisfy({ $0.visible == whole }) {
            return Array(repeating: true, count: subImages.count)
        }
        var ends = subImages.map { $0.delay > 0 }
        ends[ends.count - 1] = true
        return ends
    }
}
