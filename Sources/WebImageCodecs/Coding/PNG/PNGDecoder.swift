import CSPNG

/// Decodes one still PNG (or an APNG's default image) into an RGBA8 ``Bitmap`` with libspng.
///
/// libspng expands every colour type (palette, grey, grey+alpha, 16-bit) and applies `tRNS`, so
/// the result is always straight-alpha RGBA8. Gamma is not applied, as browsers mostly don't.
enum PNGDecoder {
    static let rgba8 = Int32(SPNG_FMT_RGBA8.rawValue)
    static let applyTransparency = Int32(SPNG_DECODE_TRNS.rawValue)

    /// The full-size pixels of the PNG in `bytes`; the header is checked against `limits`
    /// before any pixel memory is allocated.
    static func decodeBitmap(_ bytes: UnsafeBufferPointer<UInt8>, limits: DecodeLimits,
                             format: ImageFormat = .png) throws -> Bitmap {
        let ctx = try SPNGContext(decoding: bytes, limits: limits)
        let ihdr = try ctx.header()
        let size = PixelSize(width: Int(ihdr.width), height: Int(ihdr.height))
        try limits.check(size, format: format)
        var length = 0
        try ctx.check(spng_decoded_image_size(ctx.raw, rgba8, &length), "sizing the decoded image")
        guard length == size.area * 4 else {
            throw WebImageError.badData("The PNG decoder reported an unexpected image size (\(length) bytes for \(size)).")
        }
        return try Bitmap(width: size.width, height: size.height) { out in
            try ctx.check(spng_decode_image(ctx.raw, out.baseAddress, length, rgba8, applyTransparency),
                          "decoding the image data")
        }
    }

    /// Decodes a still PNG into an ``Image``: EXIF orientation applied, sized per `options`.
    static func decodeImage(_ bytes: UnsafeBufferPointer<UInt8>, options: DecodeOptions) throws -> Image {
        let bitmap = try decodeBitmap(bytes, limits: options.limits)
        let orientation = PNGChunks.exifOrientation(bytes)
        let finished = DecodedOutput.finish([bitmap], orientation: orientation, options: options)
        return Image(bitmap: finished[0], format: .png, scale: options.scaleFactor, decodeOptions: options)
    }
}

extension PNGChunks {
    /// The orientation an `eXIf` chunk declares; `.up` when there is none or it is unreadable.
    static func exifOrientation(_ bytes: UnsafeBufferPointer<UInt8>) -> EXIFOrientation {
        for chunk in PNGChunks(bytes) where chunk.type == eXIf {
            let payload = UnsafeBufferPointer(rebasing: bytes[chunk.dataOffset..<chunk.dataOffset + chunk.length])
            return EXIFOrientation.parse(exif: payload) ?? .up
        }
        return .up
    }
}
