import CAVIF

/// Converts a decoded AVIF image (YUV at 8, 10 or 12 bits, alpha optional) to the library's RGBA8.
enum AVIFPixels {
    /// The `transforms.crop` region of `image` as straight-alpha RGBA8, converted by `color`.
    /// libavif converts YUV to RGB; an image without alpha gets opaque alpha, and premultiplied
    /// alpha is divided out.
    /// 8-bit images take libavif's libyuv path (fast); 10- and 12-bit ones its own conversion,
    /// which rounds to 8 bits as avifdec's output does (libyuv's truncates).
    static func bitmap(of image: UnsafeMutablePointer<avifImage>, crop transforms: AVIFTransforms,
                       color: ColorManagement.Plan) throws -> Bitmap {
        if transforms.cropsNothing(image) { return try convert(image, color: color) }
        let crop = transforms.crop
        guard transforms.cropFitsChromaPlanes else {
            return CroppingTransformer.crop(try convert(image, color: color), x: Int(crop.x), y: Int(crop.y),
                                            width: Int(crop.width), height: Int(crop.height))
        }
        guard let view = avifImageCreateEmpty() else {
            throw WebImageError(.imageTooLarge, "libavif could not allocate an image (out of memory).")
        }
        defer { avifImageDestroy(view) }
        var planeCrop = crop
        try AVIFFailure.check(avifImageSetViewRect(view, image, &planeCrop), "cropping to the clean aperture")
        return try convert(view, color: color)
    }

    private static func convert(_ image: UnsafeMutablePointer<avifImage>, color: ColorManagement.Plan) throws -> Bitmap {
        var rgb = avifRGBImage()
        avifRGBImageSetDefaults(&rgb, image)
        rgb.format = AVIF_RGB_FORMAT_RGBA
        rgb.depth = 8
        rgb.alphaPremultiplied = AVIF_FALSE
        rgb.avoidLibYUV = image.pointee.depth > 8 ? AVIF_TRUE : AVIF_FALSE
        let width = Int(image.pointee.width), height = Int(image.pointee.height)
        rgb.rowBytes = UInt32(width * 4)
        return try Bitmap(width: width, height: height) { buffer in
            rgb.pixels = buffer.baseAddress
            try AVIFFailure.check(avifImageYUVToRGB(image, &rgb), "converting the \(width)x\(height) image to RGBA")
            color.apply(buffer)
        }
    }
}
