/// The eight EXIF orientations: how the stored pixels must be turned to display upright.
public enum EXIFOrientation: Int, Sendable, CaseIterable {
    case up = 1, upMirrored, down, downMirrored, leftMirrored, right, rightMirrored, left

    /// True for 5–8, where displaying swaps width and height.
    public var swapsDimensions: Bool { rawValue >= 5 }

    /// `size` with its sides exchanged when this orientation turns the picture by a quarter:
    /// maps a stored size to its displayed size and back.
    func turning(_ size: PixelSize) -> PixelSize {
        swapsDimensions ? PixelSize(width: size.height, height: size.width) : size
    }

    /// Reads the orientation tag (0x0112) from a TIFF-structured EXIF block; `nil` if absent or bad.
    /// Accepts the block with or without the `Exif\0\0` prefix.
    public static func parse(exif bytes: UnsafeBufferPointer<UInt8>) -> EXIFOrientation? {
        var base = 0
        if bytes.count >= 6, Array(bytes[0..<6]) == [0x45, 0x78, 0x69, 0x66, 0, 0] { base = 6 }
        guard bytes.count >= base + 8, let tiff = TIFFIntegers(bytes, markAt: base) else { return nil }
        guard tiff.u16(base + 2) == 42, let ifd = tiff.u32(base + 4), let count = tiff.u16(base + ifd) else { return nil }
        for i in 0..<min(count, 1000) {
            let entry = base + ifd + 2 + i * 12
            guard let tag = tiff.u16(entry) else { return nil }
            if tag == 0x0112 {
                guard tiff.u16(entry + 2) == 3, let value = tiff.u16(entry + 8) else { return nil }
                return EXIFOrientation(rawValue: value)
            }
        }
        return nil
    }
}

extension Bitmap {
    /// The pixels turned upright for `orientation` (self for `.up`).
    public func applying(_ orientation: EXIFOrientation) -> Bitmap {
        if orientation == .up { return self }
        let w = width, h = height
        let outW = orientation.swapsDimensions ? h : w
        let outH = orientation.swapsDimensions ? w : h
        return pixels.withUnsafeBytes { raw in
            let src = raw.bindMemory(to: UInt32.self)
            return Bitmap(width: outW, height: outH) { out in
                out.withMemoryRebound(to: UInt32.self) { dst in
                    for y in 0..<outH {
                        let row = y * outW
                        for x in 0..<outW {
                            let sx: Int, sy: Int
                            switch orientation {
                            case .up: sx = x; sy = y
                            case .upMirrored: sx = w - 1 - x; sy = y
                            case .down: sx = w - 1 - x; sy = h - 1 - y
                            case .downMirrored: sx = x; sy = h - 1 - y
                            case .leftMirrored: sx = y; sy = x
                            case .right: sx = y; sy = h - 1 - x
                            case .rightMirrored: sx = w - 1 - y; sy = h - 1 - x
                            case .left: sx = w - 1 - y; sy = x
                            }
                            dst[row + x] = src[sy * w + sx]
                        }
                    }
                }
            }
        }
    }
}
