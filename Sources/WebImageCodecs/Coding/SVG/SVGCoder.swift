import Foundation

/// SVG on librsvg: a vector image is rendered at the size asked for, never rasterised at one size
/// and then scaled. Without a thumbnail size it is rendered at its intrinsic size (width and
/// height in absolute units, else its viewBox, else 512×512); with one it is rendered to fit that
/// box, larger than its intrinsic size too, since a vector loses nothing. Decode only: SVG output
/// is not written. The document can load nothing else: no file, no URL.
public struct SVGCoder: ImageCoding {
    public init() {}

    /// True for bytes that sniff as SVG (an `<svg` element near the start of XML text).
    public func canDecode(_ data: Data) -> Bool { ImageFormat.detect(data) == .svg }

    /// The intrinsic size (this parses the document).
    public func imageInfo(for data: Data) -> ImageInfo? {
        guard canDecode(data), let document = try? SVGDocument(data) else { return nil }
        return ImageInfo(format: .svg, pixelSize: document.intrinsicSize)
    }

    public func decode(_ data: Data, options: DecodeOptions) throws -> Image {
        guard canDecode(data) else {
            throw WebImageError.badData("The data (\(data.count) bytes) is not an SVG document.")
        }
        let document = try SVGDocument(data)
        let size = Self.renderSize(document.intrinsicSize, options: options)
        try options.limits.check(size, format: .svg)
        return Image(bitmap: try document.render(at: size), format: .svg, scale: options.scaleFactor,
                     decodeOptions: options)
    }

    /// The byte budget first (never larger than intrinsic), then the thumbnail box (up or down).
    static func renderSize(_ intrinsic: PixelSize, options: DecodeOptions) -> PixelSize {
        if options.scaleDownLimitBytes != nil { return options.targetSize(for: intrinsic) }
        if let box = options.thumbnailPixelSize, !box.isEmpty {
            return ImageSizing.scaledSize(intrinsic, toFit: box, preserveAspectRatio: options.preserveAspectRatio,
                                          allowUpscale: true)
        }
        return intrinsic
    }

    /// SVG is not written.
    public func canEncode(to format: ImageFormat) -> Bool { false }

    public func encode(_ image: Image, as format: ImageFormat, options: EncodeOptions) throws -> Data {
        throw WebImageError(.unsupportedFormat, "The SVG coder does not encode.")
    }
}
