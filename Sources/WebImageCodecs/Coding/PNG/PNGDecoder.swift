import CSPNG

/// Decodes one still PNG (or an APNG's default image) into an RGBA8 ``Bitmap`` with libspng.
///
/// libspng expands every colour type (palette, grey, grey+alpha, 16-bit) and applies `tRNS`, so
/// the result is always straight-alpha RGBA8; 16-bit samples are rounded to 8 bits (libspng's
/// own RGBA8 output drops the low byte). The file's colour chunks are applied by the caller's
/// ``ColorManagement/Plan`` (``PNGColorChunks``).
enum PNGDecoder {
    static let rgba8 = Int32(SPNG_FMT_RGBA8.rawValue)
    static let rgba16 = Int32(SPNG_FMT_RGBA16.rawValue)
    static let applyTransparency = Int32(SPNG_DECODE_TRNS.rawValue)

    /// The full-size pixels of the PNG in `bytes`, converted by `color`; the header is checked
    /// against `limits` before any pixel memory is allocated.
    static func decodeBitmap(_ bytes: UnsafeBufferPointer<UInt8>, limits: DecodeLimits,
                             format: ImageFormat = .png, color: ColorManagement.Plan = .none) throws -> Bitmap {
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
            if ihdr.bit_depth == 16 {
                try decodeRounding16(ctx, size: size, into: out)
            } else {
                try decodeRows(ctx, format: rgba8, rowBytes: size.width * 4, height: size.height,
                               into: UnsafeMutableRawPointer(out.baseAddress!))
            }
            try ctx.checkTrailingChecksums()
            color.apply(out)
        }
    }

    /// Decodes a 16-bit PNG as RGBA16 and rounds each sample to 8 bits (`v × 255 / 65535`).
    private static func decodeRounding16(_ ctx: SPNGContext, size: PixelSize,
                                         into out: UnsafeMutableBufferPointer<UInt8>) throws {
        var length = 0
        try ctx.check(spng_decoded_image_size(ctx.raw, rgba16, &length), "sizing the decoded image")
        guard length == out.count * 2 else {
            throw WebImageError.badData("The PNG decoder reported an unexpected 16-bit image size (\(length) bytes).")
        }
        let wide = try [UInt16](unsafeUninitializedCapacity: out.count) { buffer, initialized in
            try decodeRows(ctx, format: rgba16, rowBytes: size.width * 8, height: size.height,
                           into: UnsafeMutableRawPointer(buffer.baseAddress!))
            initialized = out.count
        }
        wide.withUnsafeBufferPointer { w in
            for i in 0..<out.count { out[i] = UInt8((UInt32(w[i]) &* 255 &+ 32767) / 65535) }
        }
    }

    /// Decodes the image data into `out`, `height` rows of `rowBytes` in `format`, one row at a time
    /// (an interlaced image's rows are visited once per pass), and stops between blocks of rows
    /// when the thread's ``WorkCancellation`` is cancelled.
    private static func decodeRows(_ ctx: SPNGContext, format: Int32, rowBytes: Int, height: Int,
                                   into out: UnsafeMutableRawPointer) throws {
        let progressive = applyTransparency | Int32(SPNG_DECODE_PROGRESSIVE.rawValue)
        try ctx.check(spng_decode_image(ctx.raw, nil, 0, format, progressive), "starting the decode")
        var info = spng_row_info()
        var visited = 0
        while true {
            if visited & 63 == 0, WorkCancellation.isCurrentCancelled {
                throw WebImageError(.cancelled, "The PNG decode was cancelled.")
            }
            let located = spng_get_row_info(ctx.raw, &info)
            // The last row can end the image without a return of its own when the Adam7 passes
            // after it are empty (a tiny interlaced image, such as one pixel tall).
            if located == Int32(SPNG_EOI.rawValue) { return }
            try ctx.check(located, "locating row \(visited)")
            guard Int(info.row_num) < height else {
                throw WebImageError.badData("The PNG decoder reported row \(info.row_num) of \(height).")
            }
            let rc = spng_decode_row(ctx.raw, out + Int(info.row_num) * rowBytes, rowBytes)
            if rc == Int32(SPNG_EOI.rawValue) { return }
            try ctx.check(rc, "decoding row \(info.row_num)")
            visited += 1
        }
    }

    /// Decodes a still PNG into an ``Image``: colour converted, EXIF orientation applied, sized
    /// per `options`.
    static func decodeImage(_ bytes: UnsafeBufferPointer<UInt8>, options: DecodeOptions) throws -> Image {
        let color = PNGColorChunks.plan(bytes, options: options)
        let bitmap = try decodeBitmap(bytes, limits: options.limits, color: color)
        let orientation = PNGChunks.exifOrientation(bytes)
        let finished = DecodedOutput.finish([bitmap], orientation: orientation, options: options)
        return Image(bitmap: finished[0], format: .png, scale: options.scaleFactor, decodeOptions: options,
                     colorProfile: color.profile)
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
