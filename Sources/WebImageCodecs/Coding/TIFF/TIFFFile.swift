import CTIFF

/// A TIFF open for reading from memory with libtiff, its messages captured (``TIFFMessages``).
///
/// Opened with on-demand strip and tile offsets (mode `O`): libtiff then reads a directory's
/// offset arrays only where a strip is read, so a small file declaring millions of strips costs
/// nothing until the coder's own header checks have refused it. libtiff's largest single
/// allocation is capped as well, below what any image within the decode limits needs.
final class TIFFFile {
    /// libtiff's `TIFF *`.
    let tiff: OpaquePointer
    let messages: TIFFMessages
    /// The length of the file, for plausibility checks against what a directory declares.
    let byteCount: Int
    private let stream: TIFFMemoryStream

    private init(tiff: OpaquePointer, messages: TIFFMessages, stream: TIFFMemoryStream, byteCount: Int) {
        self.tiff = tiff
        self.messages = messages
        self.stream = stream
        self.byteCount = byteCount
    }

    deinit { TIFFClose(tiff) }

    /// Runs `body` with `bytes` (which must outlive it) open as a TIFF; libtiff allocates at most
    /// `maxAllocation` bytes at once.
    static func withFile<T>(_ bytes: UnsafeBufferPointer<UInt8>, maxAllocation: Int,
                            _ body: (TIFFFile) throws -> T) throws -> T {
        guard !bytes.isEmpty else { throw WebImageError.badData("The TIFF data is empty.") }
        let messages = TIFFMessages()
        let stream = TIFFMemoryStream(reading: bytes)
        guard let options = TIFFOpenOptionsAlloc() else {
            throw WebImageError(.imageTooLarge, "libtiff could not allocate its options (out of memory).")
        }
        defer { TIFFOpenOptionsFree(options) }
        TIFFOpenOptionsSetMaxSingleMemAlloc(options, tmsize_t(maxAllocation))
        messages.install(on: options)
        guard let tiff = TIFFClientOpenExt("memory", "rO", stream.handle, TIFFMemoryStream.read,
                                           TIFFMemoryStream.read, TIFFMemoryStream.seek, TIFFMemoryStream.close,
                                           TIFFMemoryStream.size, TIFFMemoryStream.map, TIFFMemoryStream.unmap,
                                           options) else {
            throw TIFFFailure.error(messages, while: "reading the TIFF header")
        }
        let file = TIFFFile(tiff: tiff, messages: messages, stream: stream, byteCount: bytes.count)
        return try withExtendedLifetime(file) { try body(file) }
    }

    /// The largest allocation libtiff may make for an image within `limits`: one strip or tile
    /// of 16-bit samples as wide as the largest allowed image (libtiff reads a strip at a time),
    /// with room for the directory's own arrays; at least 16 MiB.
    static func maxAllocation(for limits: DecodeLimits) -> Int {
        let (bytes, overflow) = limits.maxPixels.multipliedReportingOverflow(by: 10)
        return overflow ? Int.max : max(bytes, 16 << 20)
    }
}
