import CHEIF

/// Decodes the primary image of a HEIF/HEIC file with libheif, or its embedded thumbnail when
/// that is at least the requested size, converting its colour to sRGB (``HEIFColor``).
///
/// libheif applies the clean aperture, rotation and mirror properties itself. Sizes are checked
/// against the limits from the container before any image data is decoded.
enum HEIFDecoder {
    /// The header facts: the primary image's size as shown. Throws for an empty size (a grid
    /// whose own size is missing reports 0×0).
    static func info(_ bytes: UnsafeBufferPointer<UInt8>, format: ImageFormat) throws -> ImageInfo {
        try withPrimaryImage(bytes) { primary in
            let shown = shownSize(primary)
            guard !shown.isEmpty else { throw WebImageError.badData("The HEIF header declares an empty image.") }
            return ImageInfo(format: format, pixelSize: shown)
        }
    }

    /// Decodes `bytes` per `options` and tags the image `format` (`.heic` or `.heif`).
    static func decode(_ bytes: UnsafeBufferPointer<UInt8>, format: ImageFormat,
                       options: DecodeOptions) throws -> Image {
        let graph = HEIFItemGraph(bytes)
        // Derived images, canvases and the work of their parts, before libheif follows them.
        if let graph { try graph.checkDecoding(graph.primary, limits: options.limits, format: format) }
        return try withPrimaryImage(bytes) { primary in
            let shown = shownSize(primary)
            try options.limits.check(shown, format: format)
            try options.limits.check(storedSize(primary) ?? shown, format: format)
            let target = options.targetSize(for: shown)
            // The primary image's colour serves its thumbnail too (a thumbnail item rarely has
            // a colr box of its own, and shows the same picture).
            let color = HEIFColor.plan(primary, options: options)
            let bitmap: Bitmap
            if target != shown,
               let thumbnail = thumbnail(of: primary, covering: target, limits: options.limits, graph: graph, format: format) {
                defer { heif_image_handle_release(thumbnail) }
                // A thumbnail item that fails to decode leaves the primary image to serve.
                bitmap = try (try? HEIFPixels.bitmap(of: thumbnail, color: color, size: target, filter: options.resamplingFilter))
                    ?? HEIFPixels.bitmap(of: primary, color: color, size: target, filter: options.resamplingFilter)
            } else {
                bitmap = try HEIFPixels.bitmap(of: primary, color: color, size: target, filter: options.resamplingFilter)
            }
            return Image(bitmap: bitmap, format: format, scale: options.scaleFactor, decodeOptions: options,
                         colorProfile: color.profile)
        }
    }

    /// The smallest embedded thumbnail whose shown size covers `target` and has the primary's
    /// aspect ratio (within rounding), and that `graph` finds safe to decode; `nil` when there
    /// is none. The caller releases it.
    static func thumbnail(of primary: OpaquePointer, covering target: PixelSize,
                          limits: DecodeLimits, graph: HEIFItemGraph?, format: ImageFormat) -> OpaquePointer? {
        let count = Int(heif_image_handle_get_number_of_thumbnails(primary))
        guard count > 0 else { return nil }
        var ids = [heif_item_id](repeating: 0, count: count)
        let listed = Int(heif_image_handle_get_list_of_thumbnail_IDs(primary, &ids, Int32(count)))
        let shown = shownSize(primary)
        var best: (handle: OpaquePointer, area: Int)?
        func safe(_ id: heif_item_id) -> Bool {
            guard let graph else { return false }
            return (try? graph.checkDecoding(Int(id), limits: limits, format: format)) != nil
        }
        for id in ids.prefix(listed) where safe(id) {
            var handle: OpaquePointer?
            guard heif_image_handle_get_thumbnail(primary, id, &handle).code == heif_error_Ok,
                  let handle else { continue }
            let size = shownSize(handle)
            let sameShape = abs(size.width * shown.height - size.height * shown.width) <= max(shown.width, shown.height)
            let usable = size.width >= target.width && size.height >= target.height && sameShape
                && (try? limits.check(size, format: .heif)) != nil
            if usable, best.map({ size.area < $0.area }) ?? true {
                if let previous = best { heif_image_handle_release(previous.handle) }
                best = (handle, size.area)
            } else {
                heif_image_handle_release(handle)
            }
        }
        return best?.handle
    }

    /// The size of `handle`'s image as shown (after its transformations).
    static func shownSize(_ handle: OpaquePointer) -> PixelSize {
        PixelSize(width: Int(heif_image_handle_get_width(handle)), height: Int(heif_image_handle_get_height(handle)))
    }

    /// The size the image is coded at (its `ispe`), when the container says.
    static func storedSize(_ handle: OpaquePointer) -> PixelSize? {
        let size = PixelSize(width: Int(heif_image_handle_get_ispe_width(handle)),
                             height: Int(heif_image_handle_get_ispe_height(handle)))
        return size.width > 0 && size.height > 0 ? size : nil
    }

    /// Runs `body` with the primary image's handle of the HEIF in `bytes` (which must outlive it).
    private static func withPrimaryImage<T>(_ bytes: UnsafeBufferPointer<UInt8>,
                                            _ body: (OpaquePointer) throws -> T) throws -> T {
        guard !bytes.isEmpty else { throw WebImageError.badData("The HEIF data is empty.") }
        HEIFFailure.initialiseLibrary()
        guard let context = heif_context_alloc() else {
            throw WebImageError(.imageTooLarge, "libheif could not allocate a context (out of memory).")
        }
        defer { heif_context_free(context) }
        try HEIFFailure.check(heif_context_read_from_memory_without_copy(context, bytes.baseAddress, bytes.count, nil),
                              "reading the HEIF container")
        var handle: OpaquePointer?
        try HEIFFailure.check(heif_context_get_primary_image_handle(context, &handle), "finding the primary image")
        guard let primary = handle else {
            throw WebImageError.badData("The HEIF file has no primary image.")
        }
        defer { heif_image_handle_release(primary) }
        return try body(primary)
    }
}
