import Foundation

/// Per-request settings with values, SDWebImage's `SDWebImageContext` as typed properties.
///
/// Every property is optional: `nil` means "use the default" (the manager's, the downloader's or the
/// library's). Components add their own entries as they arrive; `userInfo` carries anything else.
public struct WebImageContext: Sendable {
    /// The exact coder to decode (and, in the cache, encode) with, instead of `CodersManager.shared`.
    public var imageCoder: (any ImageCoding)?
    /// Decode to fit this box; also part of the cache key (a thumbnail is cached under its own key).
    public var thumbnailPixelSize: PixelSize?
    /// With a thumbnail size: keep the aspect ratio (default true).
    public var preserveAspectRatio: Bool?
    /// Image scale (≥ 1); default: from the key's `@2x`/`@3x`.
    public var scaleFactor: Double?
    /// Decode within this many bytes (beats `thumbnailPixelSize`; not part of the cache key).
    public var scaleDownLimitBytes: Int?
    /// Limits every decode of this request must respect (default `DecodeLimits.default`).
    public var decodeLimits: DecodeLimits?
    /// Free-form values for custom loaders, caches and coders.
    public var userInfo: [String: any Sendable]
    /// Changes the download request (beats the downloader's); nil from it refuses the download.
    public var requestModifier: DownloadRequestModifier? = nil
    /// Changes the download response before validation (beats the downloader's).
    public var responseModifier: DownloadResponseModifier? = nil
    /// Transforms downloaded bytes before decoding (beats the downloader's); turns off progressive.
    public var decryptor: DownloadDecryptor? = nil
    /// Validators of a cached copy: the downloader sends If-None-Match / If-Modified-Since and
    /// reports 304 as ``WebImageError/Code/cacheNotModified`` with the response's new validators.
    public var validators: HTTPValidators? = nil

    public init(imageCoder: (any ImageCoding)? = nil, thumbnailPixelSize: PixelSize? = nil,
                preserveAspectRatio: Bool? = nil, scaleFactor: Double? = nil,
                scaleDownLimitBytes: Int? = nil, decodeLimits: DecodeLimits? = nil,
                userInfo: [String: any Sendable] = [:]) {
        self.imageCoder = imageCoder
        self.thumbnailPixelSize = thumbnailPixelSize
        self.preserveAspectRatio = preserveAspectRatio
        self.scaleFactor = scaleFactor
        self.scaleDownLimitBytes = scaleDownLimitBytes
        self.decodeLimits = decodeLimits
        self.userInfo = userInfo
    }

    /// An empty context: every default.
    public static let none = WebImageContext()

    /// The decode options this request implies for data stored under `cacheKey`, SDWebImage's rules:
    /// first frame only from the option; scale from the context (values < 1 ignored) or the key;
    /// the byte budget from the context, else the default one with `scaleDownLargeImages`.
    public func decodeOptions(for options: WebImageOptions, cacheKey: String?) -> DecodeOptions {
        var decode = DecodeOptions()
        decode.firstFrameOnly = options.contains(.decodeFirstFrameOnly)
        if let scale = scaleFactor, scale >= 1 {
            decode.scaleFactor = scale
        } else {
            decode.scaleFactor = ImageSizing.scaleFactor(forKey: cacheKey)
        }
        decode.thumbnailPixelSize = thumbnailPixelSize
        decode.preserveAspectRatio = preserveAspectRatio ?? true
        if let limit = scaleDownLimitBytes {
            decode.scaleDownLimitBytes = limit
        } else if options.contains(.scaleDownLargeImages) {
            decode.scaleDownLimitBytes = DecodeOptions.defaultScaleDownLimitBytes
        }
        if let decodeLimits { decode.limits = decodeLimits }
        return decode
    }
}

extension DecodeOptions {
    /// The byte budget `scaleDownLargeImages` applies: 90 MiB (SDWebImage's macOS value).
    public static let defaultScaleDownLimitBytes = 90 * 1024 * 1024
}
