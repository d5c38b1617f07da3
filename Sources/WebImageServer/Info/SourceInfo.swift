import Foundation
import WebImage

/// What `/info` tells of a source: read from its header, with a small decode (shrink-on-load,
/// about 100 pixels on the longer side where the format allows) for its colours and hashes.
struct SourceInfo: Sendable {
    var width: Int, height: Int
    /// The format as URLs name it (`jpeg`, `png`, `webp`, …).
    var format: String
    var frames: Int, loopCount: Int
    /// One loop of an animation, in seconds; 0 for a still image.
    var duration: Double
    var bytes: Int
    /// The EXIF orientation, 1–8.
    var orientation: Int
    var colorProfile: String?
    var hasAlpha: Bool
    var dominantColor: String?, averageColor: String?
    var blurhash: String?, thumbhash: String?

    /// The longest side of the bitmap the colours and hashes are computed from.
    static let sampleSide = 100

    /// The info of `data`, within `limits` (a source over them is refused as processing refuses
    /// it, before its pixels are decoded). Throws ``ServerError``s.
    static func make(_ data: Data, coders: CodersManager, limits: JobLimits, options: InfoOptions,
                     source: URL) throws -> SourceInfo {
        let header = coders.imageInfo(for: data)
        var decodeOptions = DecodeOptions.default
        decodeOptions.limits.maxPixels = min(decodeOptions.limits.maxPixels, limits.maxSourcePixels)
        if let header {
            var probe = ProcessingOptions()
            probe.width = sampleSide
            probe.height = sampleSide
            let plan = try JobPlan(options: probe, shownSize: header.pixelSize, format: header.format,
                                   frameCount: nil, limits: limits)
            if let box = plan.decodeBox {
                decodeOptions.thumbnailPixelSize = box
                decodeOptions.preserveAspectRatio = false
            }
        }
        let image: Image
        do {
            image = try coders.decode(data, options: decodeOptions)
        } catch let error as WebImageError {
            throw ServerError(error, source: source.absoluteString)
        }
        let size = header?.pixelSize ?? image.pixelSize
        let sample = Self.sample(image.bitmap)
        var info = SourceInfo(
            width: size.width, height: size.height, format: Self.urlName(header?.format ?? image.format),
            frames: image.frameCount, loopCount: image.loopCount, duration: image.isAnimated ? image.duration : 0,
            bytes: data.count, orientation: header?.orientation.rawValue ?? 1,
            colorProfile: image.colorProfile.map { $0.description ?? "unnamed" }, hasAlpha: image.hasAlpha,
            dominantColor: ImageColors.dominant(sample).map(ImageColors.hex),
            averageColor: ImageColors.average(sample).map(ImageColors.hex))
        if let components = options.blurhash {
            info.blurhash = try? BlurHash.encode(sample, xComponents: components.x, yComponents: components.y)
        }
        if options.thumbhash { info.thumbhash = ThumbHash.base64(ThumbHash.encode(sample)) }
        return info
    }

    /// `bitmap` shrunk to fit ``sampleSide`` (itself when it already fits).
    static func sample(_ bitmap: Bitmap) -> Bitmap {
        guard max(bitmap.width, bitmap.height) > sampleSide else { return bitmap }
        let size = ImageSizing.scaledSize(bitmap.size, toFit: PixelSize(width: sampleSide, height: sampleSide),
                                          preserveAspectRatio: true, allowUpscale: false)
        return Resampler.resize(bitmap, to: size)
    }

    /// The name a URL gives `format`: an APNG is a `png`.
    static func urlName(_ format: ImageFormat) -> String {
        switch format {
        case .apng: "png"
        default: format.rawValue
        }
    }

    /// The JSON object, keys in snake_case and sorted; absent values are `null`.
    var json: Data {
        func value(_ optional: String?) -> Any { optional ?? NSNull() }
        let object: [String: Any] = [
            "width": width, "height": height, "format": format, "frames": frames, "loop_count": loopCount,
            "duration": duration, "bytes": bytes, "orientation": orientation, "color_profile": value(colorProfile),
            "has_alpha": hasAlpha, "dominant_color": value(dominantColor), "average_color": value(averageColor),
            "blurhash": value(blurhash), "thumbhash": value(thumbhash),
        ]
        return (try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys, .withoutEscapingSlashes]))
            ?? Data("{}".utf8)
    }
}
