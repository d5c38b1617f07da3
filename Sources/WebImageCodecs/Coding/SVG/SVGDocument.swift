import CRSVG
import Foundation

/// One parsed SVG document (a librsvg handle): its intrinsic size, and rendering it onto a
/// bitmap of any size. Built from bytes alone, with no base file, so the document can reference
/// no other file or URL; librsvg's XML limits stay on (no unbounded entity expansion).
final class SVGDocument {
    /// The size used when the document gives neither a size in absolute units nor a viewBox.
    static let defaultSize = PixelSize(width: 512, height: 512)

    private let handle: OpaquePointer

    /// Parses `data`; throws ``WebImageError/Code/badImageData`` with librsvg's reason.
    init(_ data: Data) throws {
        var error: UnsafeMutablePointer<GError>?
        let handle = data.withUnsafeBytes { raw -> OpaquePointer? in
            guard let base = raw.baseAddress else { return nil }
            return OpaquePointer(rsvg_handle_new_from_data(base.assumingMemoryBound(to: guint8.self),
                                                           gsize(raw.count), &error))
        }
        guard let handle else {
            throw WebImageError.badData("The SVG could not be parsed: \(SVGDocument.take(error) ?? "unknown error").")
        }
        self.handle = handle
        // CSS's 96 pixels per inch, not librsvg's older default of 90.
        rsvg_handle_set_dpi(UnsafeMutablePointer(handle), 96)
    }

    deinit { g_object_unref(gpointer(handle)) }

    private var rsvg: UnsafeMutablePointer<RsvgHandle> { UnsafeMutablePointer(handle) }

    /// The document's own size in pixels (at 96 DPI): its width and height when both are in
    /// absolute units, else its viewBox, else ``defaultSize``. Sides are rounded up, at least 1.
    var intrinsicSize: PixelSize {
        var width = 0.0, height = 0.0
        if rsvg_handle_get_intrinsic_size_in_pixels(rsvg, &width, &height) != 0, width > 0, height > 0 {
            return Self.pixels(width, height)
        }
        var hasViewBox: gboolean = 0
        var viewBox = RsvgRectangle()
        rsvg_handle_get_intrinsic_dimensions(rsvg, nil, nil, nil, nil, &hasViewBox, &viewBox)
        if hasViewBox != 0, viewBox.width > 0, viewBox.height > 0 {
            return Self.pixels(viewBox.width, viewBox.height)
        }
        return Self.defaultSize
    }

    private static func pixels(_ width: Double, _ height: Double) -> PixelSize {
        // Absurd sizes are clamped here; the decode limits then refuse them.
        PixelSize(width: Int(min(width.rounded(.up), 1e9)), height: Int(min(height.rounded(.up), 1e9)))
    }

    /// The document drawn to fill `size` exactly (stretched when the aspect ratios differ), on a
    /// transparent background.
    func render(at size: PixelSize) throws -> Bitmap {
        let intrinsic = intrinsicSize
        var failure: String?
        let bitmap = Bitmap(width: size.width, height: size.height) { out in
            memset(out.baseAddress!, 0, out.count)
            let surface = cairo_image_surface_create_for_data(out.baseAddress!, CAIRO_FORMAT_ARGB32,
                                                              Int32(size.width), Int32(size.height),
                                                              Int32(size.width * 4))
            defer { cairo_surface_destroy(surface) }
            guard cairo_surface_status(surface) == CAIRO_STATUS_SUCCESS else {
                failure = "cairo could not make a \(size) surface"
                return
            }
            let context = cairo_create(surface)
            defer { cairo_destroy(context) }
            cairo_scale(context, Double(size.width) / Double(intrinsic.width),
                        Double(size.height) / Double(intrinsic.height))
            var viewport = RsvgRectangle(x: 0, y: 0, width: Double(intrinsic.width), height: Double(intrinsic.height))
            var error: UnsafeMutablePointer<GError>?
            if rsvg_handle_render_document(rsvg, context, &viewport, &error) == 0 {
                failure = Self.take(error) ?? "rendering failed"
            }
            cairo_surface_flush(surface)
            Self.straightenPremultipliedBGRA(out)
        }
        if let failure { throw WebImageError.badData("The SVG could not be rendered: \(failure).") }
        return bitmap
    }

    /// cairo's ARGB32 (premultiplied, B G R A in memory on little-endian machines) to the
    /// library's straight RGBA, in place.
    private static func straightenPremultipliedBGRA(_ pixels: UnsafeMutableBufferPointer<UInt8>) {
        var index = 0
        while index < pixels.count {
            let b = UInt32(pixels[index]), g = UInt32(pixels[index + 1]), r = UInt32(pixels[index + 2])
            let a = UInt32(pixels[index + 3])
            if a == 255 {
                pixels[index] = UInt8(r); pixels[index + 2] = UInt8(b)
            } else if a == 0 {
                pixels[index] = 0; pixels[index + 1] = 0; pixels[index + 2] = 0
            } else {
                pixels[index] = UInt8(min(255, (r * 255 + a / 2) / a))
                pixels[index + 1] = UInt8(min(255, (g * 255 + a / 2) / a))
                pixels[index + 2] = UInt8(min(255, (b * 255 + a / 2) / a))
            }
            index += 4
        }
    }

    /// The message of `error`, which is freed.
    private static func take(_ error: UnsafeMutablePointer<GError>?) -> String? {
        guard let error else { return nil }
        defer { g_error_free(error) }
        return error.pointee.message.map { String(cString: $0) }
    }
}
