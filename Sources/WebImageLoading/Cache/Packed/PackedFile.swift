import Foundation
import Glibc

/// An open segment or single-entry file of the packed layout: positioned reads and writes, the
/// per-file locks that keep processes apart, and whether the file is still in the directory.
///
/// Locks are Linux open-file-description locks, so two handles in one process exclude each other
/// as two processes do, and a lock goes when its process dies. Byte 0 is held exclusively by the
/// file's appender while it writes to it; byte 1 is held shared by anyone marking a record deleted
/// and exclusively by a compaction copying the file's live records out.
final class PackedFile: Sendable {
    let descriptor: Int32
    let path: String

    private init(descriptor: Int32, path: String) {
        self.descriptor = descriptor
        self.path = path
    }

    deinit { close(descriptor) }

    /// Opens an existing file for reading and, where allowed, writing the deleted flag.
    static func open(atPath path: String) -> PackedFile? {
        var fd = Glibc.open(path, O_RDWR | O_CLOEXEC | O_NOFOLLOW)
        if fd < 0 && (errno == EACCES || errno == EROFS) { fd = Glibc.open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW) }
        guard fd >= 0 else { return nil }
        let file = PackedFile(descriptor: fd, path: path)
        guard file.isRegularFile else { return nil }
        return file
    }

    /// Creates a new, empty file; fails when the name exists.
    static func create(atPath path: String) throws(DiskCacheFileSystem.Failure) -> PackedFile {
        let fd = Glibc.open(path, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0o644)
        guard fd >= 0 else { throw DiskCacheFileSystem.Failure() }
        return PackedFile(descriptor: fd, path: path)
    }

    /// The file's size, or nil when `fstat` fails.
    var size: Int? {
        var st = stat()
        return fstat(descriptor, &st) == 0 ? Int(st.st_size) : nil
    }

    /// False once the file was unlinked (compacted or cleared by some process).
    var isLinked: Bool {
        var st = stat()
        return fstat(descriptor, &st) == 0 && st.st_nlink > 0
    }

    private var isRegularFile: Bool {
        var st = stat()
        return fstat(descriptor, &st) == 0 && (st.st_mode & S_IFMT) == S_IFREG
    }

    /// Reads `count` bytes at `offset`; fewer when the file ends first; nil on an error.
    func read(count: Int, at offset: Int) -> Data? {
        guard count >= 0, offset >= 0 else { return nil }
        var data = Data(count: count)
        var filled = 0
        var failed = false
        data.withUnsafeMutableBytes { buffer in
            guard let base = buffer.baseAddress else { return }
            while filled < count {
                let got = pread(descriptor, base + filled, count - filled, off_t(offset + filled))
                if got > 0 { filled += got; continue }
                if got < 0 && errno == EINTR { continue }
                failed = got < 0
                break
            }
        }
        if failed { return nil }
        if filled < count { data.removeSubrange(filled...) }
        return data
    }

    /// Writes all of `data` at `offset`.
    func write(_ data: Data, at offset: Int) throws(DiskCacheFileSystem.Failure) {
        let failure: DiskCacheFileSystem.Failure? = data.withUnsafeBytes { buffer in
            guard let base = buffer.baseAddress else { return nil }
            var written = 0
            while written < buffer.count {
                let put = pwrite(descriptor, base + written, buffer.count - written, off_t(offset + written))
                if put > 0 { written += put; continue }
                if put < 0 && errno == EINTR { continue }
                return DiskCacheFileSystem.Failure(put < 0 ? errno : ENOSPC)
            }
            return nil
        }
        if let failure { throw failure }
    }

    /// Cuts the file back to `length` bytes (a failed append's remains).
    func truncate(to length: Int) {
        _ = ftruncate(descriptor, off_t(length))
    }

    /// Flushes the file's bytes to disk.
    func sync() {
        while fdatasync(descriptor) != 0 && errno == EINTR {}
    }

    // MARK: Locks

    enum LockByte: Int {
        /// Held exclusively by the file's appender.
        case appender = 0
        /// Shared by deleters, exclusive for a compaction.
        case records = 1
    }

    /// Takes `byte`'s lock, waiting for it when `wait` is set; false when it is held elsewhere
    /// (or locks are unsupported).
    func lock(_ byte: LockByte, exclusive: Bool, wait: Bool) -> Bool {
        var request = Self.request(exclusive ? F_WRLCK : F_RDLCK, on: byte)
        while true {
            if fcntl(descriptor, wait ? Self.ofdSetLockWait : Self.ofdSetLock, &request) == 0 { return true }
            if errno != EINTR { return false }
        }
    }

    func unlock(_ byte: LockByte) {
        var request = Self.request(F_UNLCK, on: byte)
        _ = fcntl(descriptor, Self.ofdSetLock, &request)
    }

    /// True when another handle (of any process) holds `byte`'s lock exclusively.
    func isLockedElsewhere(_ byte: LockByte) -> Bool {
        var request = Self.request(F_WRLCK, on: byte)
        guard fcntl(descriptor, Self.ofdGetLock, &request) == 0 else { return false }
        return request.l_type != Int16(F_UNLCK)
    }

    /// A lock request of `type` on one byte.
    private static func request(_ type: Int32, on byte: LockByte) -> flock {
        var request = flock()
        request.l_type = Int16(type)
        request.l_whence = Int16(SEEK_SET)
        request.l_start = off_t(byte.rawValue)
        request.l_len = 1
        return request
    }

    /// `F_OFD_GETLK`, `F_OFD_SETLK` and `F_OFD_SETLKW` from <fcntl.h> (Linux 3.15+), which Swift does not import.
    private static let ofdGetLock: Int32 = 36
    private static let ofdSetLock: Int32 = 37
    private static let ofdSetLockWait: Int32 = 38
}
