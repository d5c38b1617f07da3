import WebImage

/// The watermark step, imgproxy's last: the server's watermark scaled for the result (once per
/// request: an animation's frames share the copy), placed or tiled by ``WatermarkPlacement`` and
/// composited over the result (``WatermarkBlend``) at the base opacity × the URL's.
enum Watermarking {
    /// `image` with `watermark` drawn as `options` ask; `scaled` holds the scaled copy made for an
    /// earlier frame (kept when its size is the one needed, else made and stored there).
    static func apply(_ watermark: WatermarkImage, to image: Image, options: ProcessingOptions.Watermark,
                      dpr: Double, scaled: inout Bitmap?) throws -> Image {
        let result = image.pixelSize
        let size = WatermarkPlacement.scaledSize(of: watermark.bitmap.size, on: result, scale: options.scale)
        let mark: Bitmap
        if let scaled, scaled.size == size {
            mark = scaled
        } else if size == watermark.bitmap.size {
            mark = watermark.bitmap
        } else {
            try WorkCancellation.checkCurrent()
            let original = Image(bitmap: watermark.bitmap, format: .png, decodeOptions: image.decodeOptions)
            let resizer = ResizingTransformer(size: PointSize(width: Double(size.width), height: Double(size.height)),
                                              filter: .lanczos3)
            guard let resized = resizer.transform(original, forKey: "") else {
                throw WebImageError(.badImageData, "The watermark could not be scaled to \(size.width)×\(size.height).")
            }
            mark = resized.bitmap
        }
        scaled = mark
        let (xs, ys) = WatermarkPlacement.origins(mark: mark.size, result: result, watermark: options, dpr: dpr)
        try WorkCancellation.checkCurrent()
        let bitmap = WatermarkBlend.draw(mark, over: image.bitmap, xs: xs, ys: ys,
                                         opacity: watermark.opacity * options.opacity)
        return Image(bitmap: bitmap, format: image.format, decodeOptions: image.decodeOptions, colorProfile: image.colorProfile)
    }
}
