/// When a progressive download of an animation rebuilds the partial animation it shows.
///
/// Each rebuild reads the frame headers again and decodes the poster (a WebP also copies its
/// arrived frames into a file), so rebuilding on every frame would make a long download cost the
/// square of its length. Rebuilding when the count has grown by an eighth keeps the total to a
/// small multiple of one decode of the headers, while the first frames show at once.
enum ArrivedFramesPacing {
    /// True when `arrived` complete frames should replace a partial image of `shown` frames (nil:
    /// nothing shown yet).
    static func shouldShow(arrived: Int, shown: Int?) -> Bool {
        guard let shown else { return arrived > 0 }
        return arrived >= shown + max(1, shown / 8)
    }
}
