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
    /// `width * height * 4` bytes: R, G, B, A for each pixel, row-major.
    public let pixels: [UInt8]

    /// Bytes per row; always `width * 4`.
    @inlinable public var bytesPerRow: Int { width &* 4 }
    /// Size of ``pixels`` in bytes.
    @inlinable public var byteCount: Int { pixels.count }
    /// The pixel dimensions.
    @inlinable public var size: PixelSize { PixelSize(width: width, height: height) }

    /// Wraps existing RGBA bytes; `pixels.count` must be `width * height * 4`.
    public init(width: Int, height: Int, pixels: [UInt8]) {
        precondition(width > 0 && height > 0, "Bitmap dimensions must be positive")
        precondition(pixels.count == width * height * 4, "Bitmap needs width*height*4 bytes")
        self.width = width
        self.height = height
        self.pixels = pixels
    }

    /// A bitmap filled with one colour.
    public init(width: Int, height: Int, fill: RGBA = .clear) {
        precondition(width > 0 && height > 0, "Bitmap dimensions must be positive")
        var bytes = [UInt8](repeating: 0, count: width * height * 4)
        if fill != .clear {
            for i in stride(from: 0, to: bytes.count, by: 4) {
                bytes[i] = fill.r; bytes[i + 1] = fill.g; bytes[i + 2] = fill.b; bytes[i + 3] = fill.a
            }
        }
        self.init(width: width, height: height, pixels: bytes)
    }

    /// Builds a bitmap by letting `body` fill an uninitialised buffer of `width * height * 4` bytes.
    /// `body` must write every byte; no zeroing is done first.
    public init(width: Int, height: Int,
                initializingWith body: (UnsafeMutableBufferPointer<UInt8>) throws -> Void) rethrows {
        precondition(width > 0 && height > 0, "Bitmap dimensions must be positive")
        let count = width * height * 4
        let bytes = try [UInt8](unsafeUninitializedCapacity: count) { buffer, initialized in
            BitmapMemory.prepare(buffer)
            try body(buffer)
            initialized = count
        }
        self.init(width: width, height: height, pixels: bytes)
    }

    /// The colour at (x, y); (0, 0) is the top-left pixel.
    public func pixel(x: Int, y: Int) -> RGBA {
        precondition(x >= 0 && x < width && y >= 0 && y < height, "pixel outside the bitmap")
        let i = (y * width + x) * 4
        return RGBA(r: pixels[i], g: pixels[i + 1], b: pixels[i + 2], a: pixels[i + 3])
    }

    /// True when any pixel is not fully opaque.
    public var hasAlpha: Bool {
        pixels.withUnsafeBufferPointer { p in
            var i = 3
            while i < p.count {
                if p[i] != 255 { return true }
                i &+= 4
            }
            return false
        }
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
