import CGdkPixbuf

/// Decodes BMP and ICO bytes with gdk-pixbuf's loader for exactly one format, fed from memory.
///
/// The loader is made with `gdk_pixbuf_loader_new_with_type`, so hostile bytes never reach a
/// loader gdk-pixbuf would pick by sniffing. Callers check the header against the decode limits
/// first: the loaders allocate the whole image as soon as they have read its header.
enum GdkPixbufDecoder {
    /// gdk-pixbuf's loader names, as its `loaders.cache` lists them.
    enum Loader: String {
        case bmp, ico
    }

    /// The image in `bytes` (which must hold one `loader` image) as straight RGBA; `expected`
    /// is the size the caller read from the header (the loader must agree).
    static func decode(_ bytes: UnsafeBufferPointer<UInt8>, loader kind: Loader, expected: PixelSize) throws -> Bitmap {
        try decode([bytes], loader: kind, expected: expected)
    }

    /// The image whose bytes are `parts`, in order (fed to the loader one after another, so a
    /// file assembled from pieces is never copied whole).
    static func decode(_ parts: [UnsafeBufferPointer<UInt8>], loader kind: Loader, expected: PixelSize) throws -> Bitmap {
        var error: UnsafeMutablePointer<GError>?
        guard let loader = gdk_pixbuf_loader_new_with_type(kind.rawValue, &error) else {
            throw WebImageError(.unsupportedFormat,
                "gdk-pixbuf has no \(kind.rawValue) loader (\(take(&error))); install the gdk-pixbuf loaders (Debian: libgdk-pixbuf-2.0-0).")
        }
        defer { g_object_unref(gpointer(loader)) }
        // A failed write closes the loader itself; a successful one is closed here, which parses
        // what is left and reports a file cut short.
        for part in parts where !part.isEmpty {
            guard gdk_pixbuf_loader_write(loader, part.baseAddress, gsize(part.count), &error) != 0 else {
                throw failure(kind, take(&error))
            }
        }
        guard gdk_pixbuf_loader_close(loader, &error) != 0 else {
            throw failure(kind, take(&error))
        }
        guard let pixbuf = gdk_pixbuf_loader_get_pixbuf(loader) else {
            throw WebImageError.badData("gdk-pixbuf read the \(kind.rawValue.uppercased()) data but made no image of it; the file is corrupt.")
        }
        return try bitmap(of: pixbuf, expected: expected, kind: kind)
    }

    /// Copies a pixbuf (8-bit RGB or RGBA, straight alpha, rows padded to `rowstride`) into a
    /// bitmap, opaque alpha added to RGB.
    private static func bitmap(of pixbuf: OpaquePointer, expected: PixelSize, kind: Loader) throws -> Bitmap {
        let width = Int(gdk_pixbuf_get_width(pixbuf)), height = Int(gdk_pixbuf_get_height(pixbuf))
        let channels = Int(gdk_pixbuf_get_n_channels(pixbuf)), stride = Int(gdk_pixbuf_get_rowstride(pixbuf))
        guard PixelSize(width: width, height: height) == expected, gdk_pixbuf_get_bits_per_sample(pixbuf) == 8,
              channels == 3 || channels == 4, stride >= width * channels,
              let pixels = gdk_pixbuf_read_pixels(pixbuf) else {
            throw WebImageError.badData("gdk-pixbuf decoded the \(kind.rawValue.uppercased()) header's \(expected) image as \(width)x\(height) with \(channels) channels; the file is corrupt.")
        }
        return Bitmap(width: width, height: height) { out in
            for y in 0..<height {
                let from = pixels + y * stride
                let to = out.baseAddress! + y * width * 4
                if channels == 4 {
                    to.update(from: from, count: width * 4)
                } else {
                    var s = 0, d = 0
                    for _ in 0..<width {
                        to[d] = from[s]; to[d + 1] = from[s + 1]; to[d + 2] = from[s + 2]; to[d + 3] = 255
                        s &+= 3; d &+= 4
                    }
                }
            }
        }
    }

    private static func failure(_ kind: Loader, _ said: String) -> WebImageError {
        let lower = said.lowercased()
        let name = kind.rawValue.uppercased()
        if lower.contains("not enough memory") || lower.contains("insufficient memory") {
            return WebImageError(.imageTooLarge, "gdk-pixbuf could not allocate the \(name) image (\(said)).")
        }
        if lower.contains("premature end") || lower.contains("truncated") {
            return WebImageError.badData("The \(name) data ended early; the file is truncated (gdk-pixbuf: \(said)).")
        }
        if lower.contains("not supported") || lower.contains("unsupported") {
            return WebImageError(.unsupportedFormat, "gdk-pixbuf cannot decode this \(name) file (gdk-pixbuf: \(said)).")
        }
        return WebImageError.badData("The \(name) data is invalid or corrupt (gdk-pixbuf: \(said)).")
    }

    /// The message of `error` (freed and cleared), or a placeholder.
    private static func take(_ error: inout UnsafeMutablePointer<GError>?) -> String {
        guard let current = error else { return "no message" }
        defer { g_error_free(current); error = nil }
        return current.pointee.message.map { String(cString: $0) } ?? "no message"
    }
}
