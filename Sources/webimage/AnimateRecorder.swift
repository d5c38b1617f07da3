import Foundation
import Synchronization
import WebImage

/// What `webimage animate` collects while the player plays: each shown frame written as PNG when
/// asked, the most bytes the frame buffer held, and the first error.
final class AnimateRecorder: Sendable {
    private struct Tally {
        var written = 0
        var peakBufferBytes = 0
        var error: (any Error)?
    }

    private let outDir: String?
    private let animation: AnimatedFrames?
    private let tally = Mutex(Tally())

    init(image: Image, outDir: String?) {
        self.outDir = outDir
        self.animation = image.animation
    }

    /// Called for each frame shown: samples the buffer and writes `frame-00001.png`, … in order.
    func frameShown(_ frame: Bitmap) {
        let held = animation?.heldBytes ?? 0
        let number = tally.withLock { tally -> Int? in
            tally.peakBufferBytes = max(tally.peakBufferBytes, held)
            guard outDir != nil, tally.error == nil else { return nil }
            tally.written += 1
            return tally.written
        }
        guard let outDir, let number else { return }
        let path = (outDir as NSString).appendingPathComponent(String(format: "frame-%05d.png", number))
        do {
            let data = try CodersManager.shared.encode(Image(bitmap: frame), as: .png, options: .default)
            try data.write(to: URL(fileURLWithPath: path))
        } catch {
            record(WebImageError(.badImageData, "Cannot write \(path): \(error.localizedDescription)"))
        }
    }

    /// Keeps the first error (a frame that could not be decoded or written).
    func record(_ error: any Error) {
        tally.withLock { tally in if tally.error == nil { tally.error = error } }
    }

    /// The most bytes of decoded frames held besides the poster while playing.
    var peakBufferBytes: Int { tally.withLock { $0.peakBufferBytes } }
    /// The first error, if any.
    var error: (any Error)? { tally.withLock { $0.error } }
}
