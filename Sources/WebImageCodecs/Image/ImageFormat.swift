/// The container formats the library recognises from bytes, with their MIME types and extensions.
///
/// Recognising a format does not mean it can be decoded: ``CodersManager`` decides that
/// (JPEG, PNG, APNG, GIF, WebP, HEIC, HEIF, AVIF, JPEG XL, TIFF, BMP and ICO/CUR decode out of
/// the box; a CUR file is an `.ico` image).
public enum ImageFormat: String, Sendable, CaseIterable, Codable {
    case jpeg, png, apng, gif, webp, tiff, bmp, ico, heic, heif, avif, jpegXL = "jxl", pdf, svg
    /// Unknown or not an image.
    case undefined

    /// The IANA media type, e.g. `image/jpeg`; `application/octet-stream` for `.undefined`.
    public var mimeType: String {
        switch self {
        case .jpeg: "image/jpeg"
        case .png: "image/png"
        case .apng: "image/apng"
        case .gif: "image/gif"
        case .webp: "image/webp"
        case .tiff: "image/tiff"
        case .bmp: "image/bmp"
        case .ico: "image/x-icon"
        case .heic: "image/heic"
        case .heif: "image/heif"
        case .avif: "image/avif"
        case .jpegXL: "image/jxl"
        case .pdf: "application/pdf"
        case .svg: "image/svg+xml"
        case .undefined: "application/octet-stream"
        }
    }

    /// The usual file extension without a dot (`jpg`, `png`, …); empty for `.undefined`.
    public var fileExtension: String {
        switch self {
        case .jpeg: "jpg"
        case .tiff: "tiff"
        case .undefined: ""
        default: rawValue
        }
    }

    /// The format for a media type (parameters such as `; charset=` are ignored), or `.undefined`.
    public init(mimeType: String) {
        let essence = mimeType.split(separator: ";", maxSplits: 1).first.map {
            $0.trimmingCharacters(in: .whitespaces).lowercased()
        } ?? ""
        self = Self.byMIME[essence] ?? .undefined
    }

    /// The format for a file extension (with or without the dot, any case), or `.undefined`.
    public init(fileExtension: String) {
        var ext = fileExtension.lowercased()
        if ext.hasPrefix(".") { ext.removeFirst() }
        self = Self.byExtension[ext] ?? .undefined
    }

    private static let byMIME: [String: ImageFormat] = [
        "image/jpeg": .jpeg, "image/jpg": .jpeg, "image/pjpeg": .jpeg,
        "image/png": .png, "image/apng": .apng, "image/vnd.mozilla.apng": .apng,
        "image/gif": .gif, "image/webp": .webp, "image/tiff": .tiff,
        "image/bmp": .bmp, "image/x-bmp": .bmp, "image/x-ms-bmp": .bmp,
        "image/x-icon": .ico, "image/vnd.microsoft.icon": .ico, "image/x-win-bitmap": .ico,
        "image/heic": .heic, "image/heic-sequence": .heic, "image/heif": .heif,
        "image/heif-sequence": .heif, "image/avif": .avif, "image/jxl": .jpegXL,
        "application/pdf": .pdf, "image/svg+xml": .svg,
    ]

    private static let byExtension: [String: ImageFormat] = [
        "jpg": .jpeg, "jpeg": .jpeg, "jpe": .jpeg, "jfif": .jpeg, "png": .png, "apng": .apng,
        "gif": .gif, "webp": .webp, "tif": .tiff, "tiff": .tiff, "bmp": .bmp, "dib": .bmp,
        "ico": .ico, "cur": .ico, "heic": .heic, "heics": .heic, "heif": .heif, "heifs": .heif, "hif": .heif,
        "avif": .avif, "avifs": .avif, "jxl": .jpegXL, "pdf": .pdf, "svg": .svg,
    ]
}
