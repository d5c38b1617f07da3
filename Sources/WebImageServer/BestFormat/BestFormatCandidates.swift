import WebImage

/// The formats `format:best` may answer a request in: AVIF, WebP and JPEG XL when its `Accept`
/// names them (``AcceptHeader``: `image/*` promises none) and the server can encode them, and
/// always JPEG and PNG, which every client shows.
struct BestFormatCandidates: Sendable, Hashable {
    let avif: Bool
    let webp: Bool
    let jpegXL: Bool

    init(accept: String?, canEncode: (ImageFormat) -> Bool) {
        let accepted = AcceptHeader(accept)
        avif = accepted.accepts("image/avif") && canEncode(.avif)
        webp = accepted.accepts("image/webp") && canEncode(.webp)
        jpegXL = accepted.accepts("image/jxl") && canEncode(.jpegXL)
    }

    /// The part of a result key that tells the candidates apart: requests whose `Accept` allows
    /// the same formats share a result, others never do.
    var tag: String {
        "best:" + [avif ? "avif" : nil, webp ? "webp" : nil, jpegXL ? "jxl" : nil].compactMap { $0 }.joined(separator: "+")
    }

    /// The lossy formats to search, cheapest encoder first: JPEG (only for an opaque result: it
    /// keeps no alpha), WebP, AVIF, JPEG XL.
    func lossy(hasAlpha: Bool) -> [ImageFormat] {
        var formats: [ImageFormat] = hasAlpha ? [] : [.jpeg]
        if webp { formats.append(.webp) }
        if avif { formats.append(.avif) }
        if jpegXL { formats.append(.jpegXL) }
        return formats
    }

    /// The lossless encodings to try: PNG and lossless WebP for a flat graphic (few colours, where
    /// lossless often wins), and PNG for a result with alpha when no accepted lossy format keeps
    /// alpha.
    func lossless(flat: Bool, hasAlpha: Bool) -> [(format: ImageFormat, lossless: Bool)] {
        if flat { return webp ? [(.png, true), (.webp, true)] : [(.png, true)] }
        if hasAlpha, lossy(hasAlpha: true).isEmpty { return [(.png, true)] }
        return []
    }

    /// The one format a result is encoded in without a search (an animation, or a result over
    /// the search's size limit): AVIF (an animation as an AVIF sequence), else WebP, when
    /// accepted; else PNG with alpha, JPEG without; nil for an animation neither keeps.
    func unsearched(hasAlpha: Bool, animated: Bool) -> ImageFormat? {
        if avif { return .avif }
        if webp { return .webp }
        return animated ? nil : (hasAlpha ? .png : .jpeg)
    }
}
