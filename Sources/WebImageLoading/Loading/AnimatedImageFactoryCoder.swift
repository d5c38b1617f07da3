import WebImageCodecs
import Foundation

/// The decode step of a request whose context names an ``AnimatedImageFactory``: the factory
/// first, then the request's coder, as SDWebImage decodes into its `animatedImageClass` before
/// its coders. First-frame-only decodes skip the factory (SDWebImage: they give a still image).
/// With `matchAnimatedImageClass` there is no fallback: data the factory does not make an image
/// from is bad image data (SDWebImage's 1001).
struct AnimatedImageFactoryCoder: ImageCoding {
    let factory: any AnimatedImageFactory
    /// The coder for data the factory does not take, and for everything but decoding.
    let base: any ImageCoding
    let mustMatch: Bool

    /// The coder a request with `context` and `options` decodes with.
    static func coder(for context: WebImageContext, options: WebImageOptions) -> any ImageCoding {
        let base = context.imageCoder ?? CodersManager.shared
        guard let factory = context.animatedImageFactory else { return base }
        return AnimatedImageFactoryCoder(factory: factory, base: base,
                                         mustMatch: options.contains(.matchAnimatedImageClass))
    }

    func canDecode(_ data: Data) -> Bool { mustMatch || base.canDecode(data) }

    func decode(_ data: Data, options: DecodeOptions) throws -> Image {
        if options.firstFrameOnly { return try base.decode(data, options: options) }
        do {
            if let image = try factory.makeMarkedImage(from: data, options: options) { return image }
        } catch let error as WebImageError where mustMatch {
            throw error
        } catch where mustMatch {
            throw WebImageError(.badImageData, "The animated-image factory \(factory.name) failed: \(error)",
                                underlying: error)
        } catch {
            // Not this factory's kind after all: the coder decodes it, as SDWebImage falls back to UIImage.
        }
        guard !mustMatch else {
            let format = ImageFormat.detect(data)
            throw WebImageError(.badImageData, "The \(format.rawValue) data is not an image the animated-image "
                + "factory \(factory.name) makes, and the request must match it (matchAnimatedImageClass).")
        }
        return try base.decode(data, options: options)
    }

    func imageInfo(for data: Data) -> ImageInfo? { base.imageInfo(for: data) }
    func canEncode(to format: ImageFormat) -> Bool { base.canEncode(to: format) }
    func encode(_ image: Image, as format: ImageFormat, options: EncodeOptions) throws -> Data {
        try base.encode(image, as: format, options: options)
    }
}

extension WebImageContext {
    /// The name of the animated-image factory a request's image must have been made by: the
    /// context's factory when the request has `matchAnimatedImageClass`, nil when any image will
    /// do (no factory, no option, or a first-frame-only request, which never uses the factory).
    package func requiredAnimatedImageFactory(for options: WebImageOptions) -> String? {
        guard options.contains(.matchAnimatedImageClass), !options.contains(.decodeFirstFrameOnly) else { return nil }
        return animatedImageFactory?.name
    }
}

extension Image {
    /// True when this image is what a request with `context` and `options` may deliver: always,
    /// unless the request must match its context's animated-image factory and this image was not
    /// made by it (SDWebImage treats such a memory hit as a miss).
    package func matchesAnimatedImageFactory(of context: WebImageContext, options: WebImageOptions) -> Bool {
        guard let required = context.requiredAnimatedImageFactory(for: options) else { return true }
        return animatedImageFactoryName == required
    }
}
