import Dispatch
import Foundation
import Synchronization

/// A colour conversion that runs while its decoder is still producing rows: bands of finished
/// rows are converted on another core as they arrive, and the decoding thread converts whatever
/// is left once it is done.
///
/// Per pixel the conversion costs a third to a half of a JPEG decode in every form measured
/// (table-driven scalar C, AVX2 polynomials), so converting after the decode adds that much to
/// the time to the image; beside the decode on a free core, it adds little.
///
/// The helper converts a band in its own scratch memory and copies it back, so the decoding
/// thread never has to wait for a helper the scheduler has paused (a busy machine): at the end
/// it takes over every band the helper has not finished, and the helper's late work is dropped.
/// It waits only while the helper copies a band in or out, a few microseconds. When no core is
/// free the cost is what converting after the decode costs.
// A band's pixels are written only by the thread whose state change gave it the band. Every
// stored var (band states, finished rows, the end flag) is guarded by the `condition` lock.
final class OverlappedColorConversion: @unchecked Sendable {
    /// Rows per band: 16 rows of a 1024-pixel image are 64 KB, small enough to be converted
    /// while still in the shared cache, large enough that handing a band over costs little.
    static let bandRows = 16
    /// Smaller bitmaps are converted after their decode: handing work to another thread costs
    /// tens of microseconds, the conversion of 256 K pixels about half a millisecond.
    static let minimumPixels = 256 * 1024
    /// Cores for JPEG decodes and helpers together: a helper starts only while decodes and
    /// helpers in flight leave a core free, since on a machine whose cores are all decoding a
    /// helper would only take time from another decode (and its copies cost CPU time).
    static let coreLimit = ProcessInfo.processInfo.activeProcessorCount
    /// JPEG decodes in flight (``counting(_:)``) and helpers running.
    private static let inFlight = Mutex((decodes: 0, helpers: 0))

    /// Where a band is.
    private enum BandState {
        /// Not decoded yet, or decoded and nobody's.
        case open
        /// The helper is copying it into its scratch memory (the pixels are being read).
        case copyingIn
        /// The helper is converting its copy: the decoding thread may take the band over.
        case converting
        /// The helper is writing its converted copy back.
        case copyingOut
        /// Converted in place, by whichever thread: nobody may touch it again.
        case done
    }

    private let conversion: ColorConversion
    private let pixels: UnsafeMutablePointer<UInt8>
    private let rowBytes: Int
    private let height: Int
    private let coreLimit: Int
    private let condition = NSCondition()
    private var bands: [BandState]
    /// Rows the decoder has finished.
    private var finishedRows = 0
    private var decodingEnded = false

    /// A conversion of the `height` rows of `width` RGBA pixels at `pixels`, with a helper
    /// started on another core; nil when the bitmap is small or no core is free (convert after
    /// the decode then). Call ``rowsFinished(_:)`` as rows arrive and
    /// ``finish(convertingRest:)`` before the pixels' memory goes away. `minimumPixels` and
    /// `coreLimit` are for tests, which run many decodes at once.
    static func start(_ conversion: ColorConversion, pixels: UnsafeMutableBufferPointer<UInt8>,
                      width: Int, height: Int, minimumPixels: Int = minimumPixels,
                      coreLimit: Int = coreLimit) -> OverlappedColorConversion? {
        guard width > 0, height > 0, width * height >= minimumPixels, let base = pixels.baseAddress,
              pixels.count >= width * height * 4, reserveHelper(coreLimit: coreLimit) else { return nil }
        let overlapped = OverlappedColorConversion(conversion, pixels: base, rowBytes: width * 4, height: height,
                                                   coreLimit: coreLimit)
        DispatchQueue.global(qos: .userInitiated).async {
            overlapped.help()
            inFlight.withLock { $0.helpers -= 1 }
        }
        return overlapped
    }

    /// Runs one JPEG decode, counted so that helpers start only when a core is free.
    static func counting<T>(_ decode: () throws -> T) rethrows -> T {
        inFlight.withLock { $0.decodes += 1 }
        defer { inFlight.withLock { $0.decodes -= 1 } }
        return try decode()
    }

    private init(_ conversion: ColorConversion, pixels: UnsafeMutablePointer<UInt8>, rowBytes: Int, height: Int,
                 coreLimit: Int) {
        self.conversion = conversion
        self.coreLimit = coreLimit
        self.pixels = pixels
        self.rowBytes = rowBytes
        self.height = height
        bands = Array(repeating: .open, count: (height + Self.bandRows - 1) / Self.bandRows)
    }

    /// True when more decodes and helpers are in flight than there are cores: another decode
    /// began after this helper was started, and the helper would now take its time.
    private static func oversubscribed(coreLimit: Int) -> Bool {
        inFlight.withLock { $0.decodes + $0.helpers > coreLimit }
    }

    /// Takes a helper slot when the decodes (at least the caller's) and helpers in flight leave
    /// a core free.
    private static func reserveHelper(coreLimit: Int) -> Bool {
        inFlight.withLock { count in
            guard max(count.decodes, 1) + count.helpers < coreLimit else { return false }
            count.helpers += 1
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

    /// Ends the decode. With `convertingRest`, the decoding thread converts every band the
    /// helper has not finished, taking over those it is still converting; after a failed decode
    /// nothing more is converted. Returns once no other thread will touch the pixels.
    func finish(convertingRest: Bool) {
        condition.lock()
        decodingEnded = true
        condition.broadcast()
        for band in bands.indices {
            while bands[band] == .copyingIn || bands[band] == .copyingOut { condition.wait() }
            guard bands[band] != .done else { continue }
            // Open, or the helper's copy is still being converted: this thread's now (after a
            // failure, closed unconverted, so the helper never writes its copy back).
            bands[band] = .done
            guard convertingRest else { continue }
            condition.unlock()
            conversion.apply(rows(of: band))
            condition.lock()
        }
        condition.unlock()
    }

    /// The helper: converts complete bands in its scratch memory while the decode runs, and
    /// stops as soon as the cores are all taken by decodes (the decoder does the rest).
    private func help() {
        let scratch = UnsafeMutableBufferPointer<UInt8>.allocate(capacity: Self.bandRows * rowBytes)
        defer { scratch.deallocate() }
        var next = 0
        condition.lock()
        while next < bands.count {
            if decodingEnded { break }
            let end = min((next + 1) * Self.bandRows, height)
            guard finishedRows >= end else { condition.wait(); continue }
            let band = next
            next += 1
            guard bands[band] == .open else { continue }
            if Self.oversubscribed(coreLimit: coreLimit) { break }
            bands[band] = .copyingIn
            condition.unlock()
            let source = rows(of: band)
            let copy = UnsafeMutableBufferPointer(rebasing: scratch[..<source.count])
            copy.baseAddress!.update(from: source.baseAddress!, count: source.count)
            condition.lock()
            bands[band] = .converting
            condition.broadcast()
            condition.unlock()
            conversion.apply(copy)
            condition.lock()
            // Taken over while converting: the decoding thread has done it in place.
            guard bands[band] == .converting else { continue }
            bands[band] = .copyingOut
            condition.unlock()
            source.baseAddress!.update(from: copy.baseAddress!, count: source.count)
            condition.lock()
            bands[band] = .done
            condition.broadcast()
        }
        condition.unlock()
    }

    /// The pixels of `band`'s rows.
    private func rows(of band: Int) -> UnsafeMutableBufferPointer<UInt8> {
        let first = band * Self.bandRows
        let end = min(first + Self.bandRows, height)
        return UnsafeMutableBufferPointer(start: pixels + first * rowBytes, count: (end - first) * rowBytes)
    }
}
