import WebImageCodecs
import Glibc

/// A file's birth time through Linux `statx(2)`, which Swift's Glibc module does not expose.
///
/// Foundation's `.creationDate` cannot be used: on Linux it reports the inode change time
/// (ctime), which moves with every access-date update and would make ``DiskCacheExpireType/creationDate``
/// behave like ``DiskCacheExpireType/changeDate``.
enum FileBirthTime {
    private typealias StatxFunction = @convention(c) (
        Int32, UnsafePointer<CChar>, Int32, UInt32, UnsafeMutableRawPointer) -> Int32

    /// glibc's `statx` (2.28 and later), looked up once; nil on an older C library.
    private static let statx: StatxFunction? = {
        // A null handle is RTLD_DEFAULT: search the libraries already loaded.
        guard let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "statx") else { return nil }
        return unsafeBitCast(symbol, to: StatxFunction.self)
    }()

    /// From <linux/stat.h> (a fixed kernel ABI): the mask bit asking for the birth time, the
    /// buffer size, and the offsets of `stx_mask` and of `stx_btime`'s seconds and nanoseconds.
    private static let birthTimeMask: UInt32 = 0x800
    private static let bufferSize = 256
    private static let maskOffset = 0, secondsOffset = 80, nanosecondsOffset = 88

    /// Seconds since 1970 when `path` was created, or nil when the file is missing or its file
    /// system does not record birth times. Symlinks are not followed.
    static func seconds(atPath path: String) -> Double? {
        guard let statx else { return nil }
        let buffer = UnsafeMutableRawPointer.allocate(byteCount: bufferSize, alignment: 8)
        defer { buffer.deallocate() }
        buffer.initializeMemory(as: UInt8.self, repeating: 0, count: bufferSize)
        guard statx(AT_FDCWD, path, AT_SYMLINK_NOFOLLOW, birthTimeMask, buffer) == 0,
              buffer.load(fromByteOffset: maskOffset, as: UInt32.self) & birthTimeMask != 0 else { return nil }
        let seconds = buffer.load(fromByteOffset: secondsOffset, as: Int64.self)
        let nanoseconds = buffer.load(fromByteOffset: nanosecondsOffset, as: UInt32.self)
        return Double(seconds) + Double(nanoseconds) / 1_000_000_000
    }
}
