import WebImage

extension Image {
    /// Every frame, decoding lazily decoded ones, up to the first that fails (as a player shows
    /// a damaged animation): lets tests compare whole frame lists.
    var frames: [ImageFrame] {
        var frames: [ImageFrame] = []
        for index in 0..<frameCount {
            guard let frame = try? frame(at: index) else { break }
            frames.append(frame)
        }
        return frames
    }
}
