import WebImageCodecs
import Foundation
import Glibc

/// Reads one regular file, at most a given number of bytes, without blocking on what is not a
/// regular file (a FIFO, a device): it is opened non-blocking and checked with `fstat` on the open
/// descriptor, so what is read is what was checked.
enum LocalFileReader {
    /// The bytes of the regular file at `path` (a real path: a symbolic link there is refused), or
    /// the error for `url`: ``WebImageError/Code/invalidDownloadStatusCode`` with status 404 when it
    /// is gone or not a regular file, ``WebImageError/Code/responseTooLarge`` when it holds more
    /// than `limit` bytes (checked before reading, and while reading a file that grows).
    static func read(_ path: String, limit: Int, shownAs name: String, url: URL) -> Result<Data, WebImageError> {
        let fd = open(path, O_RDONLY | O_NONBLOCK | O_NOFOLLOW | O_CLOEXEC)
        guard fd >= 0 else {
            let code = errno
            if code == EACCES {
                return .failure(WebImageError(.sourceNotAllowed, "The local file \(name) may not be read (permission denied).", url: url))
            }
            return .failure(LocalSourcePath.notFound(name, url: url, reason: String(cString: strerror(code))))
        }
        defer { close(fd) }
        var st = stat()
        guard fstat(fd, &st) == 0 else {
            return .failure(LocalSourcePath.notFound(name, url: url, reason: String(cString: strerror(errno))))
        }
        guard (st.st_mode & S_IFMT) == S_IFREG else {
            return .failure(LocalSourcePath.notFound(name, url: url, reason: "not a regular file"))
        }
        let limit = max(0, limit)
        let size = Int(clamping: st.st_size)
        guard size <= limit else { return .failure(tooLarge(name, size: "\(size) bytes", limit: limit, url: url)) }
        // One byte past the size it had (when under the limit), to notice a file that grew past
        // the limit while read; never more than the limit plus one.
        let capacity = size < limit ? size + 1 : size
        var data = Data(count: capacity)
        var filled = 0
        var failure: Int32?
        data.withUnsafeMutableBytes { buffer in
            guard let base = buffer.baseAddress else { return }
            while filled < capacity {
                let got = Glibc.read(fd, base + filled, capacity - filled)
                if got > 0 { filled += got; continue }
                if got < 0 && errno == EINTR { continue }
                if got < 0 { failure = errno }
                break
            }
        }
        if let failure {
            return .failure(WebImageError(.connectionFailed,
                "The local file \(name) could not be read: \(String(cString: strerror(failure))).", url: url))
        }
        if filled > limit { return .failure(tooLarge(name, size: "more than \(limit) bytes", limit: limit, url: url)) }
        data.removeSubrange(filled...)
        return .success(data)
    }

    private static func tooLarge(_ name: String, size: String, limit: Int, url: URL) -> WebImageError {
        WebImageError(.responseTooLarge, "The local file \(name) is \(size), over the limit of \(limit) bytes.", url: url)
    }
}
