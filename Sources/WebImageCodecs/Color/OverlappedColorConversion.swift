import Dispatch
import Foundation
import Synchronization

/// A colour conversion that runs while its decoder is still producing rows: bands of finished
/// rows are converted on another core as they arrive, and the decoding thread converts whatever
/// nobody has taken once it is done.
///
/// Per pixel the conversion is as costly as a third to a half of a JPEG decode in every form
/// measured (table-driven scalar C, AVX2 polynomials), so converting after the decode adds that
/// much to the time to the image. Overlapped with the decode on a free core, it adds little.
/// When no core is free (every helper slot in use, or the helper not scheduled yet), the
/// decoding thread does the work itself: never slower than decoding then converting.
// No lock-free state: the band counters are read and written only with `condition` locked, and
// a band's pixels are touched only by the thread that claimed it, after its rows were reported.
final class OverlappedColorConversion: @unchecked Sendable {
    /// Rows per band: 16 rows of a 1024-pixel image are 64 KB, small enough to be converted
    /// while still in the shared cache, large enough that claiming a band costs nothing.
    static let bandRows = 16
    /// Smaller bitmaps are converted after their decode: handing work to another thread costs
    /// tens of microseconds, the conversion of 256 K pixels about half a millisecond.
    static let minimumPixels = 256 * 1024

    /// Helpers converting at once, at most one fewer than the cores: on a machine whose cores
    /// are all decoding, a helper would only take time from another decode.
    private static let helpers = Mutex(0)
    static let helperLimit = ProcessInfo.processInfo.activeProcessorCount - 1

    private let conversion: ColorConversion
    private let pixels: UnsafeMutablePointer<UInt8>
    private let rowBytes: Int
    private let height: Int
    private let condition = NSCondition()
    private var finishedRows = 0
    private var claimedRows = 0
    private var converting = 0
    private var decodingEnded = false

    /// A conversion of the `height` rows of `rowBytes` at `pixels`, with a helper started on
    /// another core; nil when the bitmap is small or no helper slot is free (convert after the
    /// decode then). Call ``rowsFinished(_:)`` as rows arrive and ``finish(convertingRest:)``
    /// before the pixels' memory goes away.
    /// `minimumPixels` and `helperLimit` are for tests, which run many decodes at once.
    static func start(_ conversion: ColorConversion, pixels: UnsafeMutableBufferPointer<UInt8>,
                      width: Int, height: Int, minimumPixels: Int = minimumPixels,
                      helperLimit: Int = helperLimit) -> OverlappedColorConversion? {
        guard width * height >= minimumPixels, let base = pixels.baseAddress,
              pixels.count >= width * height * 4, reserveHelper(limit: helperLimit) else { return nil }
        let overlapped = OverlappedColorConversion(conversion, pixels: base, rowBytes: width * 4, height: height)
        DispatchQueue.global(qos: .userInitiated).async {
            overlapped.convertBands()
            helpers.withLock { $0 -= 1 }
        }
        return overlapped
    }

    private init(_ conversion: ColorConversion, pixels: UnsafeMutablePointer<UInt8>, rowBytes: Int, height: Int) {
        self.conversion = conversion
        self.pixels = pixels
        self.rowBytes = rowBytes
        self.height = height
    }

    private static func reserveHelper(limit: Int) -> Bool {
        helpers.withLock { count in
            guard count < limit else { return false }
            count += 1
            return true
        }
    }

    /// The decoder has finished the rows above `rows`.
    func rowsFinished(_ rows: Int) {
        condition.lock()
        finishedRows = min(max(rows, finishedRows), height)
        condition.unlock()
        condition.broadcast()
    }

    /// Ends the decode: with `convertingRest`, the decoding thread converts the bands nobody
    /// has taken (after a failed decode, nothing more is converted). Returns once no thread
    /// touches the pixels any more.
    func finish(convertingRest: Bool) {
        condition.lock()
        decodingEnded = true
        if convertingRest {
            finishedRows = height
        } else {
            claimedRows = finishedRows
        }
        condition.broadcast()
        condition.unlock()
        convertBands()
        condition.lock()
        while converting > 0 { condition.wait() }
        condition.unlock()
    }

    /// Claims and converts bands until the decode has ended and none is left.
    private func convertBands() {
        condition.lock()
        while true {
            if claimedRows < finishedRows {
                let first = claimedRows
                let end = min(finishedRows, first + Self.bandRows)
                claimedRows = end
                converting += 1
                condition.unlock()
                conversion.apply(UnsafeMutableBufferPointer(start: pixels + first * rowBytes,
                                                            count: (end - first) * rowBytes))
                condition.lock()
                converting -= 1
                condition.broadcast()
            } else if decodingEnded {
                break
            } else {
                condition.wait()
            }
        }
        condition.unlock()
    }
}
