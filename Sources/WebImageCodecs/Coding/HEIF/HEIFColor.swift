import CHEIF
import Foundation

/// The colour handling of a HEIF image: its ICC profile (a `colr` box of type `prof` or `rICC`)
/// through ``ColorManagement`` as JPEG, PNG and WebP profiles go, else its `nclx` box through
/// ``NCLXColor``; neither, and the pixels are taken as sRGB.
///
/// libheif applies neither itself: it turns YUV into RGB with the `nclx` matrix and leaves the
/// primaries and transfer curve to the caller. An `nclx` carried only in the HEVC stream is not
/// reported by libheif 1.15, so such a file is taken as sRGB too.
enum HEIFColor {
    /// The plan for the pixels of `handle`'s image.
    static func plan(_ handle: OpaquePointer, options: DecodeOptions) -> ColorManagement.Plan {
        let size = heif_image_handle_get_raw_color_profile_size(handle)
        if size > 0 {
            var icc = Data(count: size)
            let read = icc.withUnsafeMutableBytes { raw in
                heif_image_handle_get_raw_color_profile(handle, raw.baseAddress)
            }
            if read.code == heif_error_Ok {
                return ColorManagement.plan(icc: icc, source: .rgb, options: options)
            }
        }
        var nclx: UnsafeMutablePointer<heif_color_profile_nclx>?
        let status = heif_image_handle_get_nclx_color_profile(handle, &nclx)
        // libheif hands out the profile it allocated even when it then refuses a value in it.
        defer { if let nclx { heif_nclx_color_profile_free(nclx) } }
        guard status.code == heif_error_Ok, let nclx else { return .none }
        let color = NCLXColor(primaries: UInt16(nclx.pointee.color_primaries.rawValue),
                              transfer: UInt16(nclx.pointee.transfer_characteristics.rawValue))
        return ColorManagement.plan(nclx: color, source: .rgb, options: options)
    }
}
