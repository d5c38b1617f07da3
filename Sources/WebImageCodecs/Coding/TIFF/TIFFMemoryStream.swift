import CTIFF
import Foundation

/// The I/O libtiff runs on: a file in memory, read from a borrowed buffer or written into a
/// growing array. Never a temporary file. libtiff calls the procedures below with the stream as
/// its client handle; a stream serves one open file on one thread.
final class TIFFMemoryStream {
    /// The bytes: borrowed (reading) or owned and growing (writing).
    private var base: UnsafeMutableRawPointer?
    private(set) var count: Int
    private var capacity: Int
    private var position = 0
    private let owned: Bool

    /// A stream reading `bytes`, which must outlive it; libtiff never writes to them.
    init(reading bytes: UnsafeBufferPointer<UInt8>) {
        base = UnsafeMutableRawPointer(mutating: bytes.baseAddress)
        count = bytes.count
        capacity = bytes.count
        owned = false
    }

    /// An empty stream that grows as libtiff writes.
    init(writingCapacity: Int) {
        capacity = max(writingCapacity, 4096)
        base = UnsafeMutableRawPointer.allocate(byteCount: capacity, alignment: 16)
        count = 0
        owned = true
    }

    deinit {
        if owned { base?.deallocate() }
    }

    /// The bytes written so far.
    var written: Data {
        guard let base, count > 0 else { return Data() }
        return Data(bytes: base, count: count)
    }

    /// This stream as libtiff's client handle (unretained: the stream outlives the open file).
    var handle: thandle_t { Unmanaged.passUnretained(self).toOpaque() }

    private static func stream(_ handle: thandle_t?) -> TIFFMemoryStream {
        Unmanaged<TIFFMemoryStream>.fromOpaque(handle!).takeUnretainedValue()
    }

    static let read: TIFFReadWriteProc = { handle, buffer, size in
        let stream = stream(handle)
        guard size >= 0, let buffer, let base = stream.base else { return size == 0 ? 0 : -1 }
        let n = min(Int(size), max(0, stream.count - stream.position))
        if n > 0 { buffer.copyMemory(from: base + stream.position, byteCount: n) }
        stream.position += n
        return tmsize_t(n)
    }

    static let write: TIFFReadWriteProc = { handle, buffer, size in
        let stream = stream(handle)
        guard stream.owned, size >= 0, let buffer else { return -1 }
        let end = stream.position + Int(size)
        guard stream.reserve(end) else { return -1 }
        (stream.base! + stream.position).copyMemory(from: buffer, byteCount: Int(size))
        stream.position = end
        stream.count = max(stream.count, end)
        return size
    }

    /// Refuses nothing within the buffer (and, writing, a little past it: libtiff seeks to the end
    /// before appending); a seek before the start fails.
    static let seek: TIFFSeekProc = { handle, offset, whence in
        let stream = stream(handle)
        let delta = Int64(bitPattern: offset)
        let from: Int64
        switch whence {
        case SEEK_CUR: from = Int64(stream.position)
        case SEEK_END: from = Int64(stream.count)
        default: from = 0
        }
        let (target, overflow) = from.addingReportingOverflow(delta)
        guard !overflow, target >= 0, target <= Int64(Int32.max) * 4 else { return toff_t.max }
        stream.position = Int(target)
        return toff_t(target)
    }

    static let close: TIFFCloseProc = { _ in 0 }

    static let size: TIFFSizeProc = { handle in toff_t(stream(handle).count) }

    /// Reading: the whole buffer is "mapped", so libtiff takes strips straight from it instead of
    /// copying them first. Writing: no mapping.
    static let map: TIFFMapFileProc = { handle, base, size in
        let stream = stream(handle)
        guard !stream.owned, let base, let size, let bytes = stream.base else { return 0 }
        base.pointee = bytes
        size.pointee = toff_t(stream.count)
        return 1
    }

    static let unmap: TIFFUnmapFileProc = { _, _, _ in }

    /// Grows the owned buffer to hold `end` bytes (zeroing any gap a seek past the end left).
    private func reserve(_ end: Int) -> Bool {
        if end > capacity {
            var next = capacity
            while next < end { next = next > Int.max / 2 ? end : next * 2 }
            let grown = UnsafeMutableRawPointer.allocate(byteCount: next, alignment: 16)
            if let base {
                grown.copyMemory(from: base, byteCount: count)
                base.deallocate()
            }
            base = grown
            capacity = next
        }
        if position > count { (base! + count).initializeMemory(as: UInt8.self, repeating: 0, count: position - count) }
        return true
    }
}
