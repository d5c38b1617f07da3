import CAVIF
import Foundation

/// The colour handling of a decoded AVIF image: its ICC profile (a `colr` box of type `prof`)
/// through ``ColorManagement`` as JPEG, PNG and WebP profiles go, else its CICP values (an `nclx`
/// box, or the AV1 sequence header when there is none) through ``NCLXColor``.
///
/// Read after a frame is decoded: libavif fills CICP values missing from the container from the
/// AV1 stream then.
enum AVIFColor {
    static func plan(_ image: UnsafeMutablePointer<avifImage>, options: DecodeOptions) -> ColorManagement.Plan {
        let source: ColorSource = image.pointee.yuvFormat == AVIF_PIXEL_FORMAT_YUV400 ? .gray : .rgb
        let icc = image.pointee.icc
        if icc.size > 0, let bytes = icc.data {
            return ColorManagement.plan(icc: Data(bytes: bytes, count: icc.size), source: source, options: options)
        }
        let nclx = NCLXColor(primaries: image.pointee.colorPrimaries, transfer: image.pointee.transferCharacteristics)
        return ColorManagement.plan(nclx: nclx, source: source, options: options)
    }
}
