import CGIF

/// A rectangle of canvas pixels.
struct GIFRect: Equatable {
    var x: Int, y: Int, width: Int, height: Int

    var isEmpty: Bool { width <= 0 || height <= 0 }

    /// The part of `self` inside a `width` × `height` canvas (possibly empty).
    func clipped(toWidth canvasWidth: Int, height canvasHeight: Int) -> GIFRect {
        let left = max(x, 0), top = max(y, 0)
        let right = min(x + width, canvasWidth), bottom = min(y + height, canvasHeight)
        return GIFRect(x: left, y: top, width: max(right - left, 0), height: max(bottom - top, 0))
    }
}

/// A frame's 256 colours as RGBA words; alpha 0 marks "leave the canvas pixel alone"
/// (the transparent index, and indices past the end of the colour map).
struct GIFPalette {
    private(set) var entries = [UInt32](repeating: 0, count: 256)
    /// True when every index paints an opaque colour (a full 256-colour map, no transparent
    /// index): rows are then copied without checking each pixel.
    private(set) var isOpaque = false

    init(colorMap: UnsafePointer<ColorMapObject>?, transparentIndex: Int) {
        guard let map = colorMap?.pointee, let colors = map.Colors else { return }
        isOpaque = Int(map.ColorCount) >= 256 && !(0..<256).contains(transparentIndex)
        for i in 0..<min(Int(map.ColorCount), 256) where i != transparentIndex {
            let c = colors[i]
            // Memory order R, G, B, A on a little-endian machine.
            entries[i] = UInt32(c.Red) | UInt32(c.Green) << 8 | UInt32(c.Blue) << 16 | 0xFF00_0000
        }
    }
}

/// The RGBA canvas an animation is composed on, with GIF's disposal methods.
///
/// Each frame is drawn over what the previous frames left; before the next frame is drawn the
/// previous one is disposed of: kept (0, 1), its rectangle cleared to transparent (2), or its
/// rectangle restored to what it was before the frame was drawn (3).
struct GIFCanvas {
    let width: Int
    let height: Int
    private(set) var pixels: [UInt8]
    private var pendingDisposal: PendingDisposal?

    private enum PendingDisposal {
        case clear(GIFRect)
        case restore(GIFRect, [UInt32])
    }

    /// A transparent canvas; the caller has checked the size against the decode limits.
    init(width: Int, height: Int) {
        self.width = width
        self.height = height
        pixels = [UInt8](repeating: 0, count: width * height * 4)
    }

    /// The canvas as it looks now: a copy into memory from the bitmap pool, so the canvas stays
    /// uniquely owned and drawing the next frame does not copy it into fresh memory.
    var bitmap: Bitmap {
        Bitmap(width: width, height: height) { out in
            pixels.withUnsafeBufferPointer { _ = out.update(fromContentsOf: $0) }
        }
    }

    /// Disposes of the previous frame, then remembers how to dispose of the frame about to be
    /// drawn in `rect` (already clipped) with GIF disposal method `disposal`.
    mutating func beginFrame(in rect: GIFRect, disposal: Int32) {
        if let pending = pendingDisposal {
            switch pending {
            case .clear(let area): fill(area, with: nil)
            case .restore(let area, let saved): fill(area, with: saved)
            }
        }
        switch disposal {
        case Int32(DISPOSE_BACKGROUND): pendingDisposal = .clear(rect)
        case Int32(DISPOSE_PREVIOUS): pendingDisposal = .restore(rect, copy(rect))
        default: pendingDisposal = nil
        }
    }

    /// Draws one row of colour indices: `indices[i]` lands at (`x + i`, `y`); entries whose
    /// palette alpha is 0 leave the canvas unchanged.
    mutating func drawRow(y: Int, x: Int, indices: UnsafeBufferPointer<UInt8>, palette: GIFPalette) {
        guard y >= 0, y < height, x >= 0, x + indices.count <= width else { return }
        let start = y * width + x
        palette.entries.withUnsafeBufferPointer { colors in
            pixels.withUnsafeMutableBufferPointer { bytes in
                bytes.withMemoryRebound(to: UInt32.self) { words in
                    let row = UnsafeMutableBufferPointer(rebasing: words[start..<start + indices.count])
                    if palette.isOpaque {
                        for i in 0..<indices.count { row[i] = colors[Int(indices[i])] }
                    } else {
                        // A select, not a branch: transparent pixels keep what is under them.
                        for i in 0..<indices.count {
                            let color = colors[Int(indices[i])]
                            row[i] = color == 0 ? row[i] : color
                        }
                    }
                }
            }
        }
    }

    private func copy(_ rect: GIFRect) -> [UInt32] {
        guard !rect.isEmpty else { return [] }
        var saved: [UInt32] = []
        saved.reserveCapacity(rect.width * rect.height)
        pixels.withUnsafeBufferPointer { bytes in
            bytes.withMemoryRebound(to: UInt32.self) { words in
                for row in rect.y..<rect.y + rect.height {
                    let start = row * width + rect.x
                    saved.append(contentsOf: words[start..<start + rect.width])
                }
            }
        }
        return saved
    }

    /// Fills `rect` with `saved` pixels (row by row), or with transparent black when nil.
    private mutating func fill(_ rect: GIFRect, with saved: [UInt32]?) {
        guard !rect.isEmpty else { return }
        let canvasWidth = width
        pixels.withUnsafeMutableBufferPointer { bytes in
            bytes.withMemoryRebound(to: UInt32.self) { words in
                for (n, row) in (rect.y..<rect.y + rect.height).enumerated() {
                    let start = row * canvasWidth + rect.x
                    for i in 0..<rect.width {
                        words[start + i] = saved?[n * rect.width + i] ?? 0
                    }
                }
            }
        }
    }
}
