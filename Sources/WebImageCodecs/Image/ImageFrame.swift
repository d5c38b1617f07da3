/// One frame of an image: its pixels and, for animations, how long it stays on screen.
public struct ImageFrame: Sendable, Hashable {
    /// The fully composed frame (animation disposal and blending already applied).
    public let bitmap: Bitmap
    /// Display time in seconds; 0 for a still image.
    public let duration: Double

    /// A frame showing `bitmap` for `duration` seconds (0 for a still image).
    public init(bitmap: Bitmap, duration: Double = 0) {
        self.bitmap = bitmap
        self.duration = duration
    }
}
