import CTIFF

/// libtiff's RGBA interface (`TIFFRGBAImage`) for the layouts the coder does not convert itself:
/// YCbCr outside JPEG, CIE Lab, LogLuv, odd bit depths. It hands back premultiplied RGBA, which
/// is divided back to straight alpha here; it reduces 16-bit samples by truncation.
enum TIFFRGBAFallback {
    /// The current directory of `file` (`size` pixels, stored orientation) as straight RGBA,
    /// converted by `color`.
    static func bitmap(_ file: TIFFFile, size: PixelSize, color: ColorManagement.Plan) throws -> Bitmap {
        let tif = file.tiff
        var message = [CChar](repeating: 0, count: 1024)
        guard TIFFRGBAImageOK(tif, &message) == 1 else {
            throw WebImageError(.unsupportedFormat, "libtiff cannot convert this TIFF's pixels (libtiff: \(text(message))).")
        }
        var image = TIFFRGBAImage()
        guard TIFFRGBAImageBegin(&image, tif, 0, &message) == 1 else {
            throw WebImageError(.unsupportedFormat, "libtiff cannot convert this TIFF's pixels (libtiff: \(text(message))).")
        }
        defer { TIFFRGBAImageEnd(&image) }
        // Rows as stored: the coder applies the orientation itself, for every layout alike.
        image.req_orientation = image.orientation
        let premultiplied = image.alpha != 0
        return try Bitmap(width: size.width, height: size.height) { buffer in
            let raster = UnsafeMutableRawPointer(buffer.baseAddress!).bindMemory(to: UInt32.self, capacity: size.area)
            guard TIFFRGBAImageGet(&image, raster, UInt32(size.width), UInt32(size.height)) == 1 else {
                throw TIFFFailure.error(file.messages, while: "decoding the pixels")
            }
            // libtiff packs A<<24 | B<<16 | G<<8 | R: in memory (little-endian) R, G, B, A.
            #if _endian(big)
            for i in 0..<size.area { raster[i] = raster[i].byteSwapped }
            #endif
            if premultiplied { unpremultiply(buffer) }
            color.apply(buffer)
        }
    }

    private static func unpremultiply(_ pixels: UnsafeMutableBufferPointer<UInt8>) {
        var i = 0
        while i < pixels.count {
            let a = pixels[i + 3]
            if a != 255 {
                pixels[i] = UInt8.unpremultiply(pixels[i], a)
                pixels[i + 1] = UInt8.unpremultiply(pixels[i + 1], a)
                pixels[i + 2] = UInt8.unpremultiply(pixels[i + 2], a)
            }
            i &+= 4
        }
    }

    private static func text(_ message: [CChar]) -> String {
        String(decoding: message.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}
