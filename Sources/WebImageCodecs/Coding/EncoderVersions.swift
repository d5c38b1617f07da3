import CAVIF
import CGIF
import CJPEGRows
import CJXL
import CSPNG
import CWebP

/// The versions of the encoder libraries linked at run time, as one line (`webp 1.2.4, avif 0.11.1,
/// …`), so that a cache of encoded results can be keyed by them: an upgraded encoder makes other
/// bytes, and results made by the old one are not served as if made by the new.
public enum EncoderVersions {
    /// Each encoder library and its version, in a fixed order.
    public static let summary: String = {
        let webp = WebPGetEncoderVersion()
        let jxl = JxlEncoderVersion()
        let parts = [
            "webp \(webp >> 16).\((webp >> 8) & 0xFF).\(webp & 0xFF)",
            "avif \(String(cString: avifVersion()))",
            "spng \(String(cString: spng_version_string()))",
            "gif \(GIFLIB_MAJOR).\(GIFLIB_MINOR).\(GIFLIB_RELEASE)",
            "jxl \(jxl / 1_000_000).\(jxl / 1000 % 1000).\(jxl % 1000)",
            "jpeg-turbo \(webimage_jpeg_library_version())",
        ]
        return parts.joined(separator: ", ")
    }()
}
