import Foundation

/// Makes the animated images a request asks for: SDWebImage's `animatedImageClass` (a class
/// conforming to `SDAnimatedImage`, created with `init(data:scale:options:)`).
///
/// Set one on a request's context (`WebImageContext.animatedImageFactory`) to decode animations
/// your own way — a frame decoder of your own, a buffer policy, a format the coders do not read.
/// The images it makes carry its ``name`` (``Image/animatedImageFactoryName``), which is how the
/// `matchAnimatedImageClass` option tells them from images decoded otherwise.
public protocol AnimatedImageFactory: Sendable {
    /// The name of the images this factory makes; two factories that make interchangeable images
    /// may share one.
    var name: String { get }
    /// The image for `data` decoded with `options`, or nil when this factory does not make images
    /// from such data (the request then falls back to its coder, unless it must match).
    func makeImage(from data: Data, options: DecodeOptions) throws -> Image?
}

extension AnimatedImageFactory {
    /// ``makeImage(from:options:)``'s image, marked as made by this factory.
    package func makeMarkedImage(from data: Data, options: DecodeOptions) throws -> Image? {
        try makeImage(from: data, options: options)?.markedAsMade(byFactory: name)
    }
}

/// The library's own animated images: data in a format that can hold an animation (GIF, PNG and
/// APNG, WebP, JPEG XL, AVIF), decoded by a coder with frames on demand, as an `SDAnimatedImage`
/// is made only by the animated coders. A still in one of those formats is a one-frame image of
/// this kind; a JPEG, TIFF or BMP is not (nil).
public struct CoderAnimatedImageFactory: AnimatedImageFactory {
    /// The name its images carry.
    public static let defaultName = "WebImage.AnimatedImage"
    /// The formats whose data this factory makes images from.
    public static let animatableFormats: Set<ImageFormat> = [.gif, .png, .apng, .webp, .jpegXL, .avif]

    public let name: String
    private let coder: any ImageCoding

    /// A factory decoding with `coder` (the shared coders by default).
    public init(coder: any ImageCoding = CodersManager.shared, name: String = CoderAnimatedImageFactory.defaultName) {
        self.coder = coder
        self.name = name
    }

    /// The coder's image when `data` is in one of the ``animatableFormats``, else nil.
    public func makeImage(from data: Data, options: DecodeOptions) throws -> Image? {
        guard Self.animatableFormats.contains(ImageFormat.detect(data)) else { return nil }
        return try coder.decode(data, options: options)
    }
}
