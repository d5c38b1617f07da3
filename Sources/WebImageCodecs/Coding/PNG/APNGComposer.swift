/// Draws APNG frames onto the animation canvas, honouring each frame's blend and dispose
/// operations as the APNG specification describes.
///
/// The canvas starts fully transparent black. Each frame is blended into its rectangle, the
/// canvas is captured as that frame's output, then the rectangle is disposed: left as is, cleared
/// to transparent black, or restored to what it was before the frame was drawn.
struct APNGComposer {
    let width: Int
    let height: Int
    private var canvas: [UInt8]
    private var framesDrawn = 0

    init(canvas size: PixelSize) {
        width = size.width
        height = size.height
        canvas = [UInt8](repeating: 0, count: size.area * 4)
    }

    /// Draws `frame` (exactly `control.width` x `control.height`) and returns the composed canvas.
    mutating func draw(_ frame: Bitmap, control: APNGStructure.FrameControl) -> Bitmap {
        var dispose = control.dispose
        if framesDrawn == 0, dispose == .previous { dispose = .background }
        framesDrawn += 1
        let saved = dispose == .previous ? region(control) : nil
        blend(frame, control)
        // A copy into pooled memory: the canvas stays uniquely owned, so disposing of this frame
        // below does not copy it into fresh memory.
        let output = Bitmap(width: width, height: height) { out in
            canvas.withUnsafeBufferPointer { _ = out.update(fromContentsOf: $0) }
        }
        switch dispose {
        case .none: break
        case .background: clear(control)
        case .previous: if let saved { restore(saved, control) }
        }
        return output
    }

    /// A copy of the canvas bytes under the frame rectangle, row by row.
    private func region(_ c: APNGStructure.FrameControl) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(c.width * c.height * 4)
        for row in 0..<c.height {
            let start = ((c.y + row) * width + c.x) * 4
            out.append(contentsOf: canvas[start..<start + c.width * 4])
        }
        return out
    }

    private mutating func restore(_ saved: [UInt8], _ c: APNGStructure.FrameControl) {
        let rowBytes = c.width * 4
        for row in 0..<c.height {
            let start = ((c.y + row) * width + c.x) * 4
            canvas.replaceSubrange(start..<start + rowBytes, with: saved[row * rowBytes..<(row + 1) * rowBytes])
        }
    }

    private mutating func clear(_ c: APNGStructure.FrameControl) {
        let rowBytes = c.width * 4
        canvas.withUnsafeMutableBufferPointer { dst in
            for row in 0..<c.height {
                let start = ((c.y + row) * width + c.x) * 4
                UnsafeMutableBufferPointer(rebasing: dst[start..<start + rowBytes]).update(repeating: 0)
            }
        }
    }

    /// Blends `frame` into its rectangle: copy for `source`, straight-alpha "over" for `over`.
    private mutating func blend(_ frame: Bitmap, _ c: APNGStructure.FrameControl) {
        let canvasWidth = width
        frame.pixels.withUnsafeBufferPointer { src in
            canvas.withUnsafeMutableBufferPointer { dst in
                for row in 0..<c.height {
                    let s = row * c.width * 4
                    let d = ((c.y + row) * canvasWidth + c.x) * 4
                    if c.blend == .source {
                        for i in 0..<c.width * 4 { dst[d + i] = src[s + i] }
                        continue
                    }
                    for px in 0..<c.width {
                        Self.over(src, s + px * 4, dst, d + px * 4)
                    }
                }
            }
        }
    }

    /// Source-over for one straight-alpha pixel.
    @inline(__always)
    private static func over(_ src: UnsafeBufferPointer<UInt8>, _ s: Int,
                             _ dst: UnsafeMutableBufferPointer<UInt8>, _ d: Int) {
        let sa = Int(src[s + 3])
        if sa == 0 { return }
        let da = Int(dst[d + 3])
        if sa == 255 || da == 0 {
            for k in 0..<4 { dst[d + k] = src[s + k] }
            return
        }
        // Work in units of 1/(255*255): out alpha and alpha-weighted colours.
        let dWeight = da * (255 - sa)
        let outAlpha = sa * 255 + dWeight
        for k in 0..<3 {
            let value = Int(src[s + k]) * sa * 255 + Int(dst[d + k]) * dWeight
            dst[d + k] = UInt8((value + outAlpha / 2) / outAlpha)
        }
        dst[d + 3] = UInt8((outAlpha + 127) / 255)
    }
}
