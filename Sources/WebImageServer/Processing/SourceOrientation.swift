import WebImage

/// Sizes before and after the request's quarter turns (`rot`).
enum SourceOrientation {
    static func turned(_ size: PixelSize, rotate: Int) -> PixelSize {
        rotate % 180 == 0 ? size : PixelSize(width: size.height, height: size.width)
    }

    static func unturned(_ size: PixelSize, rotate: Int) -> PixelSize {
        turned(size, rotate: rotate)
    }
}
