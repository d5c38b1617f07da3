import CGIF
import Foundation

/// A giflib encoding handle writing into a growing in-memory buffer.
///
/// giflib pushes its output through a C callback, which finds the buffer through `UserData`.
/// Every giflib call is checked: the first failure throws ``WebImageError/Code/encodingFailed``
/// with giflib's reason.
final class GIFWriter {
    private let file: UnsafeMutablePointer<GifFileType>
    private let sink: UnsafeMutablePointer<GIFOutputSink>
    private var isClosed = false

    init() throws {
        let sink = UnsafeMutablePointer<GIFOutputSink>.allocate(capacity: 1)
        sink.initialize(to: GIFOutputSink())
        var error: Int32 = 0
        guard let file = EGifOpen(sink, gifWriteToSink, &error) else {
            sink.deinitialize(count: 1)
            sink.deallocate()
            throw WebImageError(.encodingFailed, "giflib could not start a GIF: \(GIFReader.describe(error)).")
        }
        self.file = file
        self.sink = sink
        EGifSetGifVersion(file, true)
    }

    deinit {
        if !isClosed {
            var error: Int32 = 0
            EGifCloseFile(file, &error)
        }
        sink.deinitialize(count: 1)
        sink.deallocate()
    }

    /// Runs one giflib call, throwing with `what` and giflib's reason when it fails.
    func check(_ what: String, _ call: (UnsafeMutablePointer<GifFileType>) -> Int32) throws {
        guard call(file) == GIF_OK else {
            throw WebImageError(.encodingFailed, "Writing the GIF failed at \(what): \(GIFReader.describe(file.pointee.Error)).")
        }
    }

    /// Writes the trailer, frees giflib's state and returns the file's bytes.
    func finish() throws -> Data {
        var error: Int32 = 0
        isClosed = true
        guard EGifCloseFile(file, &error) == GIF_OK else {
            throw WebImageError(.encodingFailed, "Finishing the GIF failed: \(GIFReader.describe(error)).")
        }
        return Data(sink.pointee.bytes)
    }
}

/// The bytes giflib has written so far.
struct GIFOutputSink {
    var bytes: [UInt8] = []
}

/// giflib's output callback: appends `count` bytes to the sink.
private func gifWriteToSink(_ file: UnsafeMutablePointer<GifFileType>?,
                            _ source: UnsafePointer<GifByteType>?, _ count: Int32) -> Int32 {
    guard let file, let source, count > 0, let user = file.pointee.UserData else { return 0 }
    let sink = user.assumingMemoryBound(to: GIFOutputSink.self)
    sink.pointee.bytes.append(contentsOf: UnsafeBufferPointer(start: source, count: Int(count)))
    return count
}
