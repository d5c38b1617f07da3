import WebImageCodecs
import Foundation
import Glibc
import Synchronization

/// The errno-checked POSIX file operations the disk cache is built on.
///
/// Plain syscalls rather than FileManager on the hot path: they report errno precisely (so a
/// vanished file is a clean miss), refuse to follow symlinks, and never buffer a partial write.
enum DiskCacheFileSystem {
    /// A failed syscall: which errno, and its text.
    struct Failure: Error, Sendable {
        let code: Int32
        init(_ code: Int32 = errno) { self.code = code }
        var text: String { String(cString: strerror(code)) }
    }

    /// What `lstat` says about a path, dates as seconds since 1970.
    struct FileInfo: Sendable {
        var size: Int
        var accessDate: Double
        var modificationDate: Double
        var changeDate: Double
        var isRegularFile: Bool
    }

    /// Name prefix of files being written; hidden, so scans and counts skip them.
    static let temporaryPrefix = ".webimage-tmp-"

    /// `lstat(path)`, or nil when it fails (usually ENOENT).
    static func info(atPath path: String) -> FileInfo? {
        var st = stat()
        guard lstat(path, &st) == 0 else { return nil }
        return FileInfo(size: Int(st.st_size), accessDate: seconds(st.st_atim),
                        modificationDate: seconds(st.st_mtim), changeDate: seconds(st.st_ctim),
                        isRegularFile: (st.st_mode & S_IFMT) == S_IFREG)
    }

    /// Which file a path named when it was read: its device and inode.
    struct FileIdentity: Sendable, Equatable {
        var device: UInt64
        var inode: UInt64
    }

    /// The whole content of the regular file at `path` (symlinks are not followed).
    static func readFile(atPath path: String) -> Result<Data, Failure> {
        readFileAndIdentity(atPath: path).map(\.data)
    }

    /// The whole content of the regular file at `path` and which file it was.
    static func readFileAndIdentity(atPath path: String) -> Result<(data: Data, identity: FileIdentity), Failure> {
        let fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW)
        guard fd >= 0 else { return .failure(Failure()) }
        defer { close(fd) }
        var st = stat()
        guard fstat(fd, &st) == 0 else { return .failure(Failure()) }
        let identity = FileIdentity(device: UInt64(st.st_dev), inode: UInt64(st.st_ino))
        guard (st.st_mode & S_IFMT) == S_IFREG else { return .failure(Failure(EISDIR)) }
        let expected = Int(st.st_size)
        var data = Data(count: expected)
        var filled = 0
        var failure: Failure?
        data.withUnsafeMutableBytes { buffer in
            guard let base = buffer.baseAddress else { return }
            while filled < expected {
                let got = read(fd, base + filled, expected - filled)
                if got > 0 { filled += got; continue }
                if got < 0 && errno == EINTR { continue }
                if got < 0 { failure = Failure() }
                break
            }
        }
        if let failure { return .failure(failure) }
        if filled < expected { data.removeSubrange(filled...) }
        return .success((data, identity))
    }

    /// Writes `data` and then `trailer` to a new hidden temporary file in `directory`, stamps both
    /// its access and modification dates with `date`, flushes it to disk first when `sync` is set,
    /// and returns its path. On failure nothing is left behind.
    static func writeTemporaryFile(_ data: Data, trailer: Data? = nil, inDirectory directory: String, date: Double,
                                   sync: Bool = false) throws(Failure) -> String {
        var path = ""
        var fd: Int32 = -1
        // O_EXCL makes a clash harmless; it can only come from another process with the same
        // random token, so a few fresh names always suffice.
        for _ in 0..<4 {
            path = directory + "/" + temporaryPrefix + uniqueSuffix()
            fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o644)
            if fd >= 0 || errno != EEXIST { break }
        }
        guard fd >= 0 else { throw Failure() }
        var failure = writeAll(data, to: fd)
        if failure == nil, let trailer { failure = writeAll(trailer, to: fd) }
        var times = [timespec(date), timespec(date)]
        if failure == nil && futimens(fd, &times) != 0 { failure = Failure() }
        if failure == nil && sync && fsyncRetryingInterrupts(fd) != 0 { failure = Failure() }
        if close(fd) != 0 && failure == nil { failure = Failure() }
        if let failure {
            unlink(path)
            throw failure
        }
        return path
    }

    /// Flushes `directory`'s entries (a rename into it) to disk. Errors are ignored: file systems
    /// that cannot sync a directory (EINVAL) keep their entries all the same.
    static func syncDirectory(atPath directory: String) {
        let fd = open(directory, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard fd >= 0 else { return }
        _ = fsyncRetryingInterrupts(fd)
        close(fd)
    }

    /// Deletes the file at `path` only while it is still the file `identity` names, so a damaged
    /// entry found by a read is removed without deleting a whole one another writer renamed
    /// into its place since.
    static func removeFile(atPath path: String, ifStill identity: FileIdentity) {
        var st = stat()
        guard lstat(path, &st) == 0,
              FileIdentity(device: UInt64(st.st_dev), inode: UInt64(st.st_ino)) == identity else { return }
        unlink(path)
    }

    /// Sets the access date of `path` to `date`, leaving its modification date alone.
    @discardableResult
    static func setAccessDate(_ date: Double, atPath path: String) -> Bool {
        var times = [timespec(date), Glibc.timespec(tv_sec: 0, tv_nsec: utimeOmit)]
        return utimensat(AT_FDCWD, path, &times, AT_SYMLINK_NOFOLLOW) == 0
    }

    /// Sets both dates of `path` (tests use it to age entries).
    @discardableResult
    static func setDates(access: Double, modification: Double, atPath path: String) -> Bool {
        var times = [timespec(access), timespec(modification)]
        return utimensat(AT_FDCWD, path, &times, AT_SYMLINK_NOFOLLOW) == 0
    }

    /// `unlink(path)`; true when the file is gone afterwards (ENOENT counts as success).
    @discardableResult
    static func removeFile(atPath path: String) -> Bool {
        unlink(path) == 0 || errno == ENOENT
    }

    /// Creates `path` and its missing parents; an existing directory is fine.
    static func createDirectory(atPath path: String) throws(Failure) {
        var st = stat()
        if stat(path, &st) == 0 {
            guard (st.st_mode & S_IFMT) == S_IFDIR else { throw Failure(ENOTDIR) }
            return
        }
        let parent = (path as NSString).deletingLastPathComponent
        if !parent.isEmpty && parent != path && parent != "/" { try createDirectory(atPath: parent) }
        if mkdir(path, 0o755) != 0 && errno != EEXIST { throw Failure() }
    }

    /// The names in `directory` (hidden ones included), or nil when it cannot be listed.
    static func contentsOfDirectory(atPath directory: String) -> [String]? {
        try? FileManager.default.contentsOfDirectory(atPath: directory)
    }

    /// The file's birth time where the file system records it, else nil.
    static func creationDate(atPath path: String) -> Double? {
        FileBirthTime.seconds(atPath: path)
    }

    /// Writes all of `data` to `fd`; the failure, if any (a write of 0 bytes counts as ENOSPC).
    private static func writeAll(_ data: Data, to fd: Int32) -> Failure? {
        data.withUnsafeBytes { buffer -> Failure? in
            guard let base = buffer.baseAddress else { return nil }
            var written = 0
            while written < buffer.count {
                let put = write(fd, base + written, buffer.count - written)
                if put > 0 { written += put; continue }
                if put < 0 && errno == EINTR { continue }
                return Failure(put < 0 ? errno : ENOSPC)
            }
            return nil
        }
    }

    private static func fsyncRetryingInterrupts(_ fd: Int32) -> Int32 {
        while true {
            let result = fsync(fd)
            if result == 0 || errno != EINTR { return result }
        }
    }

    /// `UTIME_OMIT` from <sys/stat.h>, which Swift does not import.
    private static let utimeOmit = (1 << 30) - 2

    private static func seconds(_ time: Glibc.timespec) -> Double {
        Double(time.tv_sec) + Double(time.tv_nsec) / 1_000_000_000
    }

    private static func timespec(_ seconds: Double) -> Glibc.timespec {
        let whole = seconds.rounded(.down)
        let nanos = min(999_999_999, max(0, Int(((seconds - whole) * 1_000_000_000).rounded())))
        return Glibc.timespec(tv_sec: Int(whole), tv_nsec: nanos)
    }

    /// A random token per process plus a counter: unique names without a `getrandom` call per write.
    private static func uniqueSuffix() -> String {
        processToken + "-" + String(temporaryCounter.add(1, ordering: .relaxed).newValue, radix: 36)
    }

    private static let processToken = String(UInt64.random(in: .min ... .max), radix: 36)
        + String(UInt64.random(in: .min ... .max), radix: 36)
    private static let temporaryCounter = Atomic<UInt64>(0)
}
