import CHEIF

/// Decodes one image item of a HEIF file to the library's RGBA8.
enum HEIFPixels {
    /// The pixels of `handle`'s image at `size`, with libheif's transformations (clean aperture,
    /// rotation, mirror) applied, deeper samples reduced to 8 bits, opaque alpha when there is
    /// none, premultiplied alpha divided out, converted by `color`, then resampled to `size`
    /// with `filter` (``Resampler``) when the image is not that size.
    ///
    /// When nothing is to be done to the decoded pixels but resampling (no colour conversion, no
    /// premultiplied alpha), they are resampled where libheif decoded them: the image at its
    /// decoded size is never copied into a bitmap of its own (an embedded thumbnail scaled to
    /// the requested size costs one bitmap, of the requested size).
    static func bitmap(of handle: OpaquePointer, color: ColorManagement.Plan, size: PixelSize,
                       filter: ResamplingFilter = .default) throws -> Bitmap {
        guard let options = heif_decoding_options_alloc() else {
            throw WebImageError(.imageTooLarge, "libheif could not allocate decoding options (out of memory).")
        }
        defer { heif_decoding_options_free(options) }
        options.pointee.convert_hdr_to_8bit = 1
        var decoded: OpaquePointer?
        try HEIFFailure.check(heif_decode_image(handle, &decoded, heif_colorspace_RGB, heif_chroma_interleaved_RGBA, options),
                              "decoding the image")
        guard let image = decoded else { throw WebImageError.badData("libheif decoded no image.") }
        defer { heif_image_release(image) }

        let width = Int(heif_image_get_width(image, heif_channel_interleaved))
        let height = Int(heif_image_get_height(image, heif_channel_interleaved))
        let depth = heif_image_get_bits_per_pixel_range(image, heif_channel_interleaved)
        var stride: Int32 = 0
        guard width > 0, height > 0, depth == 8,
              let plane = heif_image_get_plane_readonly(image, heif_channel_interleaved, &stride),
              Int(stride) >= width * 4 else {
            throw WebImageError.badData("libheif returned no usable RGBA plane (\(width)x\(height), \(depth) bits).")
        }
        try checkShape(PixelSize(width: width, height: height),
                       declared: PixelSize(width: Int(heif_image_handle_get_width(handle)),
                                           height: Int(heif_image_handle_get_height(handle))))
        let rows = PixelRows(base: plane, width: width, height: height, bytesPerRow: Int(stride))
        let premultiplied = heif_image_handle_is_premultiplied_alpha(handle) != 0
            && heif_image_handle_has_alpha_channel(handle) != 0
        if rows.size != size, !premultiplied, color.conversion == nil {
            return Resampler.resize(rows, to: size, filter: filter)
        }
        let full = Bitmap(width: width, height: height) { out in
            let rowBytes = width * 4
            for y in 0..<height {
                (out.baseAddress! + y * rowBytes).update(from: plane + y * Int(stride), count: rowBytes)
            }
            if premultiplied { unpremultiply(out) }
            color.apply(out)
        }
        return Resampler.resize(full, to: size, filter: filter)
    }

    /// Refuses a decoded picture whose shape is not the declared one's (their aspect ratios more
    /// than 1% apart). libheif decodes what the coded stream holds, which a damaged or hostile
    /// file makes differ from its header (a 64×8240 picture for a 16384×48 image), and resampling
    /// one into the other would take work out of all proportion to either: every source row
    /// widened to the declared width. Of the same shape, the work is bounded by the larger of the
    /// two, as for any resize.
    static func checkShape(_ decoded: PixelSize, declared: PixelSize) throws {
        guard decoded != declared else { return }
        let across = Double(decoded.width) * Double(declared.height)
        let down = Double(declared.width) * Double(decoded.height)
        guard abs(across - down) <= 0.01 * max(across, down) else {
            throw WebImageError.badData("libheif decoded a \(decoded.width)x\(decoded.height) picture for an image declared \(declared.width)x\(declared.height).")
        }
    }

    /// Divides each colour by its alpha, rounding (a colour over its alpha is clamped).
    static func unpremultiply(_ pixels: UnsafeMutableBufferPointer<UInt8>) {
        var i = 0
        while i + 3 < pixels.count {
            let alpha = Int(pixels[i + 3])
            if alpha != 0 && alpha != 255 {
                for c in i..<i + 3 {
                    pixels[c] = UInt8(min(255, (Int(pixels[c]) * 255 + alpha / 2) / alpha))
                }
            }
            i += 4
        }
    }
}
