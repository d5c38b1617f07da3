import Foundation

/// Progressive GIF display for one download: the first frame as soon as its rows arrive (a
/// partial image), then, once a second frame has fully arrived, a partial animation of the frames
/// complete so far (decoded on demand, so each update costs a walk of the records, not a decode),
/// then the full animation once the data is complete.
final class GIFIncrementalDecoder: IncrementalImageDecoding {
    private let decoder: GIFDecoder
    private var data = Data()
    private var finished = false
    /// The first frame once its data was complete; it cannot change as more bytes arrive.
    private var completeFirstFrame: Image?

    init(options: DecodeOptions) {
        decoder = GIFDecoder(options: options)
    }

    func update(_ data: Data, finished: Bool) {
        self.data = data
        self.finished = finished
    }

    func currentImage() throws -> Image? {
        if finished { return try decoder.decode(data) }
        if let completeFirstFrame {
            if let arrived = try? decoder.decodeLazily(data, isPartial: true) {
                return arrived
            }
            return completeFirstFrame
        }
        guard !data.isEmpty, let (image, isComplete) = decoder.decodeFirstFrameSoFar(data) else { return nil }
        if isComplete { completeFirstFrame = image }
        return image
    }
}
