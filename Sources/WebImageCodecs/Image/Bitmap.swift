#if canImport(Glibc)
import Glibc
#endif

/// A decoded raster in the library's one pixel layout: 8-bit RGBA, **straight (non-premultiplied)
/// alpha**, rows top to bottom, `width * 4` bytes per row, no padding.
///
/// Every decoder produces this layout and every encoder and transformer consumes it, so pixels
/// never need converting between stages.
public struct Bitmap: Sendable, Hashable {
    /// Width in pixels (at least 1).
    public let width: Int
    /// Height in pixels (at least 1).
    public let height: Int
    /// The memory, shared by copies of this bitmap; returned to a ``BitmapPool`` when the last
    /// copy goes away.
    private let storage: PixelStorage

    /// `width * height * 4` bytes: R, G, B, A for each pixel, row-major.
    public var pixels: [UInt8] { storage.bytes }
    /// Bytes per row; always `width * 4`.
    @inlinable public var bytesPerRow: Int { width &* 4 }
    /// Size of ``pixels`` in bytes.
    public var byteCount: Int { width &* height &* 4 }
    /// The pixel dimensions.
    @inlinable public var size: PixelSize { PixelSize(width: width, height: height) }

    /// Wraps existing RGBA bytes; `pixels.count` must be `width * height * 4`. The array stays the
    /// caller's: it never goes to a ``BitmapPool``.
    public init(width: Int, height: Int, pixels: [UInt8]) {
        precondition(width > 0 && height > 0, "Bitmap dimensions must be positive")
        precondition(pixels.count == width * height * 4, "Bitmap needs width*height*4 bytes")
        self.width = width
        self.height = height
        self.storage = PixelStorage(bytes: pixels, pool: nil)
    }

    /// A bitmap filled with one colour.
    public init(width: Int, height: Int, fill: RGBA = .clear) {
        self.init(width: width, height: height) { out in
            if fill == .clear {
                out.update(repeating: 0)
            } else {
                for i in stride(from: 0, to: out.count, by: 4) {
                    out[i] = fill.r; out[i + 1] = fill.g; out[i + 2] = fill.b; out[i + 3] = fill.a
                }
            }
        }
    }

    /// Builds a bitmap by letting `body` fill a buffer of `width * height * 4` bytes: memory from
    /// the current ``BitmapPool`` when it has a buffer of that size, else fresh memory. `body`
    /// must write every byte: the buffer holds whatever was there before.
    public init(width: Int, height: Int,
                initializingWith body: (UnsafeMutableBufferPointer<UInt8>) throws -> Void) rethrows {
        precondition(width > 0 && height > 0, "Bitmap dimensions must be positive")
        let count = width * height * 4
        let pool = Self.pool(forByteCount: count)
        var bytes: [UInt8]
        if let pool, var recycled = pool.take(byteCount: count) {
            do {
                try recycled.withUnsafeMutableBufferPointer { try body($0) }
            } catch {
                pool.offer(recycled)
                throw error
            }
            bytes = recycled
        } else {
            bytes = try [UInt8](unsafeUninitializedCapacity: count) { buffer, initialized in
                BitmapMemory.prepare(buffer)
                try body(buffer)
                initialized = count
            }
        }
        self.width = width
        self.height = height
        self.storage = PixelStorage(bytes: bytes, pool: pool)
    }

    /// The pool a buffer of `byteCount` bytes comes from and returns to; nil for small buffers.
    private static func pool(forByteCount byteCount: Int) -> BitmapPool? {
        byteCount >= BitmapPool.minimumByteCount ? BitmapPool.current : nil
    }

    /// Calls `body` with the pixel bytes, without copying them or retaining an array.
    public func withUnsafeBytes<R>(_ body: (UnsafeBufferPointer<UInt8>) throws -> R) rethrows -> R {
        try storage.bytes.withUnsafeBufferPointer(body)
    }

    /// Equal when both have the same size and the same bytes.
    public static func == (lhs: Bitmap, rhs: Bitmap) -> Bool {
        lhs.width == rhs.width && lhs.height == rhs.height
            && (lhs.storage === rhs.storage || lhs.storage.bytes == rhs.storage.bytes)
    }

    /// Hashes the size and the bytes.
    public func hash(into hasher: inout Hasher) {
        hasher.combine(width)
        hasher.combine(height)
        hasher.combine(storage.bytes)
    }

    /// The colour at (x, y); (0, 0) is the top-left pixel.
    public func pixel(x: Int, y: Int) -> RGBA {
        precondition(x >= 0 && x < width && y >= 0 && y < height, "pixel outside the bitmap")
        let i = (y * width + x) * 4
        return withUnsafeBytes { p in RGBA(r: p[i], g: p[i + 1], b: p[i + 2], a: p[i + 3]) }
    }

    /// True when any pixel is not fully opaque.
    public var hasAlpha: Bool {
        withUnsafeBytes { PixelRows($0, width: width, height: height).hasAlpha }
    }
}

/// Makes fresh pixel memory cheap to fill. A large buffer straight from the allocator is
/// untouched virtual memory, and filling it costs one page fault per 4 KiB: for a 1024×768
/// image, 768 faults, more kernel time than the JPEG decode's own work is worth. Asking the
/// kernel to map the pages in one call (`MADV_POPULATE_WRITE`, Linux 5.14) does the same work
/// without a trap per page. Advice only: an older kernel says EINVAL, and the contents are unchanged.
package enum BitmapMemory {
    /// Smaller buffers are usually recycled heap memory that is already mapped (128 KiB is also
    /// where glibc starts giving each allocation its own fresh mapping).
    package static let threshold = 128 * 1024
    /// Bytes mapped per call (64 pages).
    static let populateStep = 256 * 1024

    package static func prepare(_ buffer: UnsafeMutableBufferPointer<UInt8>) {
        #if canImport(Glibc)
        guard buffer.count >= threshold, let base = buffer.baseAddress, pageSize > 0 else { return }
        let page = pageSize
        let start = UInt(bitPattern: base), end = start + UInt(buffer.count)
        // Whole pages inside the buffer only: the allocator's header page is not ours to advise.
        let first = (start + page - 1) & ~(page - 1), last = end & ~(page - 1)
        // In steps, because each call holds the process's address-space lock for reading: another
        // thread's allocation (an mmap, which needs it for writing) then waits for one step only.
        var from = first
        while from < last {
            // Work asked to stop maps no more (its caller drops the bitmap).
            if WorkCancellation.isCurrentCancelled { return }
            let length = min(last - from, UInt(populateStep))
            guard madvise(UnsafeMutableRawPointer(bitPattern: from), Int(length), MADV_POPULATE_WRITE) == 0 else { return }
            from += length
        }
        #endif
    }

    #if canImport(Glibc)
    private static let pageSize = UInt(max(0, sysconf(Int32(_SC_PAGESIZE))))
    #endif
}
