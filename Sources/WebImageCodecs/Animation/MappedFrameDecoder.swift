/// Decodes the frames of a transformed animation: each frame of the source, transformed when it
/// is asked for (SDWebImage's `transformAnimatedImage`, applied lazily).
final class MappedFrameDecoder: AnimationFrameDecoding {
    private let source: AnimatedFrames
    private let transform: @Sendable (Bitmap) -> Bitmap?

    init(source: AnimatedFrames, transform: @escaping @Sendable (Bitmap) -> Bitmap?) {
        self.source = source
        self.transform = transform
    }

    func decodeFrame(at index: Int) throws -> Bitmap {
        guard let bitmap = transform(try source.frame(at: index)) else {
            throw WebImageError.badData("The transformer failed on frame \(index) of the animation.")
        }
        return bitmap
    }
}
