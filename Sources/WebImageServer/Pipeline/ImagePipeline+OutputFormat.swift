import Foundation
import WebImage

/// The result's format and quality: what the URL asks for, else what the client's `Accept`
/// allows when the server negotiates, else the source's own format where browsers show it.
extension ImagePipeline {
    /// The format picked from `Accept` when the URL names none (imgproxy's order: AVIF, then
    /// WebP), if the server was told to negotiate.
    func negotiatedFormat(accept: String?) -> ImageFormat? {
        guard let accept, configuration.autoAVIF || configuration.autoWebP else { return nil }
        let accepted = AcceptHeader(accept)
        if configuration.autoAVIF, accepted.accepts("image/avif"), coders.canEncode(to: .avif) { return .avif }
        if configuration.autoWebP, accepted.accepts("image/webp") { return .webp }
        return nil
    }

    /// Refuses (422, as imgproxy does, before the source is fetched) a result format the server
    /// cannot write, instead of answering another format. An SVG result is the SVG source itself.
    func checkEncodable(_ asked: ImageFormat?) throws(ServerError) {
        guard let asked, asked != .svg, !coders.canEncode(to: asked) else { return }
        throw ServerError(status: 422, name: "unsupported_format",
                          message: "Resulting image format is not supported: \(asked.rawValue) (this server has no encoder for it).")
    }

    /// The largest box a result in `format` is shrunk to fit before encoding (imgproxy's limits
    /// for the formats whose files cannot be larger), or nil for none.
    static func encoderBox(for format: ImageFormat) -> PixelSize? {
        switch format {
        case .ico: PixelSize(width: 256, height: 256)
        default: nil
        }
    }

    /// The format `image` is encoded in: `asked` (named by the URL, or negotiated from `Accept`;
    /// an animation asked for as AVIF, WebP, GIF or PNG stays animated), else the source's own.
    func outputFormat(_ asked: ImageFormat?, for image: Image) -> ImageFormat {
        if let asked, coders.canEncode(to: asked) { return asked == .apng ? .png : asked }
        if [.jpeg, .png, .webp, .gif].contains(image.format) { return image.format }
        // An animated PNG stays animated: the PNG encoder writes APNG for several frames. A
        // rasterised SVG has an alpha channel, as its drawing surface does.
        if image.format == .apng || image.format == .svg { return .png }
        return image.hasAlpha ? .png : .jpeg
    }

    func quality(for format: ImageFormat, options: ProcessingOptions) -> Int {
        if options.quality > 0 { return options.quality }
        if let quality = options.formatQuality[format], quality > 0 { return quality }
        switch format {
        case .webp: return 79
        case .avif: return 63
        default: return configuration.defaultQuality
        }
    }
}

extension ImageFormat {
    /// Whether the server's encoder for this format keeps several frames (AVIF as an image sequence).
    var isAnimatable: Bool { self == .gif || self == .webp || self == .png || self == .apng || self == .avif }
}
